import CommandLineSupport
import FoundationEssentials
import GroceryStore

/// Turns live-list events into lines; keeps the list to redraw it and to compute short ids.
final class WatchPrinter {
    enum Style { case redraw, append, json }

    let style: Style
    let sort: GroceryItemOrder
    let format: GroceryStorageFormat
    let container: String
    private var items: [GroceryItemID: GroceryItem] = [:]
    /// False until the first list arrives (a package that cannot be read when the watch begins
    /// gives a notice first): the screen then says so rather than showing no items.
    private var gathered = false
    /// The latest change lines, shown under the redrawn list.
    private var recent: [String] = []
    private static let recentLimit = 10

    init(style: Style, sort: GroceryItemOrder, format: GroceryStorageFormat, container: String) {
        self.style = style
        self.sort = sort
        self.format = format
        self.container = container
    }

    func show(_ event: GroceryLiveList.Event) {
        let now = Date()
        switch event {
        case .gathered(let list):
            items = .init(items: list)
            gathered = true
            switch style {
            case .json: emit(kind: "gathered", at: now, list: list)
            case .append: Output.line(listing())
            case .redraw: redraw(at: now)
            }
        case .changed(let changes):
            for change in changes { apply(change) }
            report(changes, at: now)
        case .reconnecting(let reason):
            switch style {
            case .json: Output.line(Output.json(Notice(kind: "reconnecting", reason: reason, message: nil, at: Output.iso(now))))
            case .append, .redraw: note("daemon went away, reconnecting… (\(reason))", at: now)
            }
        case .regathered(let list, let changes):
            items = .init(items: list)
            switch style {
            case .json: emit(kind: "regathered", at: now, list: list)
            case .append, .redraw: note("reconnected, re-gathered \(counted(list.count, "item"))", at: now)
            }
            report(changes, at: now)
        case .resumed(let changes):
            let tally = GroceryChangeTally(changes)
            switch style {
            case .json:
                Output.line(Output.json(Resumed(kind: "resumed", added: tally.added, changed: tally.changed,
                                                removed: tally.removed, at: Output.iso(now))))
            case .append, .redraw:
                note(tally.isEmpty ? "reconnected; nothing changed while you were away"
                                   : "reconnected; while you were away: \(tally)", at: now)
            }
            for change in changes { apply(change) }
            report(changes, at: now)
        case .imported(let devices, let changes):
            let tally = GroceryChangeTally(changes)
            let from = devices.isEmpty ? "another device" : devices.joined(separator: ", ")
            switch style {
            case .json:
                Output.line(Output.json(Imported(kind: "imported", devices: devices, added: tally.added, changed: tally.changed,
                                                 removed: tally.removed, at: Output.iso(now))))
            case .append, .redraw:
                note("from \(from): \(tally)", at: now)
            }
            for change in changes { apply(change) }
            report(changes, at: now)
        case .notice(let message):
            switch style {
            case .json: Output.line(Output.json(Notice(kind: "notice", reason: nil, message: message, at: Output.iso(now))))
            case .append, .redraw: note(message, at: now)
            }
        }
    }

    private func apply(_ change: GroceryChange) {
        switch change.kind {
        case .removed: items[change.id] = nil
        case .added, .renamed, .retagged, .imageSet, .imageRemoved, .conflicted, .conflictResolved:
            var item = items[change.id] ?? GroceryItem(id: change.id, name: change.name)
            item.name = change.name
            if let tags = change.tags { item.tags = tags }
            if change.kind == .imageSet { item.image = change.image }
            if change.kind == .imageRemoved { item.image = nil }
            if change.kind == .conflicted { item.inConflict = true }
            if change.kind == .conflictResolved { item.inConflict = false }
            items[change.id] = item
        }
    }

    private func report(_ changes: [GroceryChange], at now: Date) {
        guard !changes.isEmpty else {
            if style == .redraw { redraw(at: now) }
            return
        }
        let shortIDs = GroceryItemID.shortIDs(for: Set(items.keys).union(changes.map(\.id)))
        for change in changes {
            let shortID = shortIDs[change.id] ?? change.id.uuidString
            switch style {
            case .json:
                Output.line(Output.json(ChangeLine(change, shortID: shortID)))
            case .append:
                Output.line(line(change, shortID: shortID))
            case .redraw:
                remember(line(change, shortID: shortID))
            }
        }
        if style == .redraw { redraw(at: now) }
    }

    private func line(_ change: GroceryChange, shortID: String) -> String {
        let name = Output.oneLine(GroceryName.display(change.name))
        let (word, color, text): (String, Output.Style, String) = switch change.kind {
        case .added: ("added", .green, name)
        case .renamed: ("renamed", .yellow, Output.oneLine(GroceryName.display(change.oldName ?? "")) + " → " + name)
        case .retagged: ("tagged", .cyan, name + " (" + ItemFormat.tagList(change.tags ?? []) + ")")
        case .removed: ("removed", .red, name)
        case .imageSet: ("image set", .cyan, name + " (\(change.image?.rawValue ?? "image"))")
        case .imageRemoved: ("image removed", .cyan, name)
        case .conflicted: ("conflict", .red, name + " — saved on two devices at once; see `grocery conflicts \(shortID)`")
        case .conflictResolved: ("resolved", .green, name)
        }
        let padded = word + String(repeating: " ", count: max(0, 7 - word.count))
        return Output.clock(change.at) + "  " + Output.styled(padded, color) + "  " + Output.styled(shortID, .yellow) + "  " + text
    }

    private func note(_ message: String, at now: Date) {
        let line = Output.clock(now) + "  " + Output.styled(message, .dim)
        if style == .redraw {
            remember(line)
            redraw(at: now)
        } else {
            Output.line(line)
        }
    }

    private func remember(_ line: String) {
        recent.append(line)
        if recent.count > Self.recentLimit { recent.removeFirst(recent.count - Self.recentLimit) }
    }

    private func listing() -> String {
        let list = sort.sorted(items.values)
        guard !list.isEmpty else { return "(no items)" }
        return ItemFormat.table(list, shortIDs: GroceryItemID.shortIDs(for: items.keys), format: format)
    }

    /// Clears the terminal and prints the list, then the latest changes.
    private func redraw(at now: Date) {
        var screen = "\u{1B}[H\u{1B}[2J"
        let count = gathered ? counted(items.count, "item") : "the list not read yet"
        screen += Output.styled("\(container): \(count) at \(Output.clock(now))", .bold)
            + Output.styled("  (watching; Ctrl-C to stop)", .dim) + "\n\n"
        screen += (gathered ? listing() : "(waiting for a list that reads)") + "\n"
        if !recent.isEmpty { screen += "\n" + Output.styled("Latest changes", .bold) + "\n" + recent.joined(separator: "\n") + "\n" }
        Output.write(screen, to: 1)
    }

    private func emit(kind: String, at now: Date, list: [GroceryItem]) {
        let sorted = sort.sorted(list)
        let shortIDs = GroceryItemID.shortIDs(for: list.map(\.id))
        Output.line(Output.json(ListLine(kind: kind, count: list.count, items: ItemFormat.jsonItems(sorted, shortIDs: shortIDs, format: format),
                                         at: Output.iso(now))))
    }

    private struct ListLine: Encodable {
        let kind: String, count: Int, items: [ItemFormat.JSONItem], at: String
    }

    private struct Imported: Encodable {
        let kind: String, devices: [String], added: Int, changed: Int, removed: Int, at: String
    }

    private struct Resumed: Encodable {
        let kind: String, added: Int, changed: Int, removed: Int, at: String
    }

    private struct Notice: Encodable {
        let kind: String, reason: String?, message: String?, at: String
        func encode(to encoder: any Encoder) throws {
            enum Keys: String, CodingKey { case kind, reason, message, at }
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(kind, forKey: .kind)
            try c.encodeIfPresent(reason, forKey: .reason)
            try c.encodeIfPresent(message, forKey: .message)
            try c.encode(at, forKey: .at)
        }
    }

    private struct ChangeLine: Encodable {
        let change: GroceryChange, shortID: String
        init(_ change: GroceryChange, shortID: String) {
            self.change = change
            self.shortID = shortID
        }
        func encode(to encoder: any Encoder) throws {
            enum Keys: String, CodingKey { case kind, id, shortID, name, oldName, image, tags, at }
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(change.kind.rawValue, forKey: .kind)
            try c.encode(change.id.uuidString, forKey: .id)
            try c.encode(shortID, forKey: .shortID)
            try c.encode(change.name, forKey: .name)
            try c.encode(change.oldName, forKey: .oldName)
            try c.encode(change.image?.rawValue, forKey: .image)
            try c.encodeIfPresent(change.tags, forKey: .tags)
            try c.encode(Output.iso(change.at), forKey: .at)
        }
    }
}
