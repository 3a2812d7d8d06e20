import ArgumentParser
import Dispatch
import Foundation
import GroceryStore

/// `grocery watch`: the live list.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show the list live: every item added, renamed or removed, by any process, as it happens.",
        discussion: """
            Prints the list, then each change with the time it was seen:
              10:00:03  added    7B00  free-range eggs
              10:00:04  renamed  3F2A  milk → oat milk
              10:00:05  removed  7B00  free-range eggs
            On a terminal the list is redrawn with the latest changes under it; piped, lines are
            appended. If the daemon restarts, watch says "daemon went away, reconnecting…",
            retries (100 ms, doubling to 2 s) until it is back, then "reconnected, re-gathered N
            items" and what changed meanwhile. Ctrl-C (or SIGTERM) stops it with exit status 0.
            With --json, one object per line: {"kind":"gathered","count":…,"items":[…],"at":…},
            then {"kind":"added"|"renamed"|"removed"|"imageSet"|"imageRemoved","id":…,"shortID":…,
            "name":…,"oldName":…,"image":…,"at":…}, and "reconnecting", "regathered", "notice".
            Example:
              $ grocery watch --json | jq -c 'select(.kind == "renamed")'
            """
    )

    @Option(help: ArgumentHelp("Sort by name (case-insensitive) or by creation (oldest first).", valueName: "order"))
    var sort: Choice<GroceryItemOrder> = .init(.name)

    @Option(help: ArgumentHelp(
        "Report changes at most once per SECONDS (default: the daemon's, 0.05; 0: at once).", valueName: "seconds"))
    var batching: Double?

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @OptionGroup var options: StoreOptions

    func validate() throws {
        if let batching, !(0...3600).contains(batching) {
            throw ValidationError("--batching must be between 0 and 3600 seconds, found \(batching)")
        }
    }

    func run() async throws {
        let live = GroceryLiveList(socketPath: options.socketPath, container: options.container,
                                   format: options.store.value, batchingInterval: batching)
        let style: WatchPrinter.Style = json ? .json : (Output.isTerminal ? .redraw : .append)
        let sort = sort.value, format = options.store.value, container = options.container
        let watching = Task {
            let printer = WatchPrinter(style: style, sort: sort, format: format, container: container)
            try await live.run { printer.show($0) }
        }
        // Ctrl-C and SIGTERM cancel the watch: the query stops, the connection closes, exit 0.
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { watching.cancel() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try await watching.value
        } catch is CancellationError {
            return
        } catch {
            throw Failure.exit(for: error)
        }
    }
}

/// Turns live-list events into lines; keeps the list to redraw it and to compute short ids.
final class WatchPrinter {
    enum Style { case redraw, append, json }

    let style: Style
    let sort: GroceryItemOrder
    let format: GroceryStorageFormat
    let container: String
    private var items: [GroceryItemID: GroceryItem] = [:]
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
            case .append, .redraw: note("reconnected, re-gathered \(list.count) item\(list.count == 1 ? "" : "s")", at: now)
            }
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
        case .added, .renamed, .imageSet, .imageRemoved:
            var item = items[change.id] ?? GroceryItem(id: change.id, name: change.name)
            item.name = change.name
            if change.kind == .imageSet { item.image = change.image }
            if change.kind == .imageRemoved { item.image = nil }
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
        case .removed: ("removed", .red, name)
        case .imageSet: ("image set", .cyan, name + " (\(change.image?.rawValue ?? "image"))")
        case .imageRemoved: ("image removed", .cyan, name)
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
        let count = items.count
        var screen = "\u{1B}[H\u{1B}[2J"
        screen += Output.styled("\(container): \(count) item\(count == 1 ? "" : "s") at \(Output.clock(now))", .bold)
            + Output.styled("  (watching; Ctrl-C to stop)", .dim) + "\n\n"
        screen += listing() + "\n"
        if !recent.isEmpty { screen += "\n" + Output.styled("Latest changes", .bold) + "\n" + recent.joined(separator: "\n") + "\n" }
        Output.write(screen, to: 1)
    }

    private func emit(kind: String, at now: Date, list: [GroceryItem]) {
        let sorted = sort.sorted(list)
        let shortIDs = GroceryItemID.shortIDs(for: list.map(\.id))
        Output.line(Output.json(ListLine(kind: kind, count: list.count, items: ItemFormat.jsonItems(sorted, shortIDs: shortIDs),
                                         at: Output.iso(now))))
    }

    private struct ListLine: Encodable {
        let kind: String, count: Int, items: [ItemFormat.JSONItem], at: String
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
            enum Keys: String, CodingKey { case kind, id, shortID, name, oldName, image, at }
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(change.kind.rawValue, forKey: .kind)
            try c.encode(change.id.uuidString, forKey: .id)
            try c.encode(shortID, forKey: .shortID)
            try c.encode(change.name, forKey: .name)
            try c.encode(change.oldName, forKey: .oldName)
            try c.encode(change.image?.rawValue, forKey: .image)
            try c.encode(Output.iso(change.at), forKey: .at)
        }
    }
}
