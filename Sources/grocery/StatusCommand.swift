import ArgumentParser
import Foundation
import GroceryStore

/// `grocery status`: is the daemon there, which container, where, how many items.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say whether the daemon is reachable, which container the list is in, and how many items it has.",
        discussion: """
            Example:
              $ grocery status
              daemon     ubiquityd 0.1.0 at /run/user/1000/ubiquity/ubiquityd.sock
              container  com.example.grocery
              path       /home/me/.local/share/ubiquity/containers/com.example.grocery
              store      files (Documents/Item_<UUID>)
              items      3
            When the daemon is not running, says how to start it and exits 3.
            """
    )

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (version, list, count) = try await options.withList { list in
            (list.connection.hello.version, (container: list.container, path: list.containerPath,
                                             documents: list.documents, format: list.format),
             try await list.items().count)
        }
        let socket = options.socketPath
        if json {
            struct Status: Encodable {
                let daemon: String, socket: String, container: String, path: String, documents: String
                let store: String, items: Int
            }
            Output.line(Output.json(Status(daemon: version, socket: socket, container: list.container, path: list.path,
                                           documents: list.documents, store: list.format.rawValue, items: count)))
            return
        }
        let location = list.format == .files ? "Documents/Item_<UUID>" : "Documents/grocery.gro"
        Output.line(Output.table(header: nil, rows: [
            ["daemon", "ubiquityd \(version) at \(socket)"],
            ["container", list.container],
            ["path", list.path],
            ["store", "\(list.format.rawValue) (\(location))"],
            ["items", String(count)],
        ]))
    }
}

/// `grocery add NAME...`
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add items; prints each new item's id.",
        discussion: """
            Each name becomes one item: a new file Documents/Item_<UUID> whose content is the name
            in UTF-8, written atomically (or a new row of the package). Any text works: emoji,
            right-to-left scripts, newlines (quote them, or use --stdin); an empty name shows as
            "Unnamed item". Names are limited to \(GroceryLimits.maxNameBytes) bytes of UTF-8.
            Examples:
              $ grocery add milk "free-range eggs" 🍎
              $ printf 'flour\\n(the strong one)' | grocery add --stdin
            """
    )

    @Argument(help: ArgumentHelp("The names of the new items.", valueName: "name"))
    var names: [String] = []

    @Flag(help: "Read one more name from standard input: all of it, newlines included.")
    var stdin = false

    @Flag(help: "Print one JSON object per new item: {\"id\": ..., \"name\": ...}.")
    var json = false

    @OptionGroup var options: StoreOptions

    func validate() throws {
        guard !names.isEmpty || stdin else { throw ValidationError("give at least one name, or --stdin") }
    }

    func run() async throws {
        var names = self.names
        if stdin {
            do { names.append(try Self.readStandardInput()) } catch { throw Failure.exit(for: error) }
        }
        let all = names
        let added = try await options.withList { try $0.add(all) }
        for item in added {
            if json {
                struct Added: Encodable { let id: String, name: String }
                Output.line(Output.json(Added(id: item.id.uuidString, name: item.name)))
            } else {
                Output.line(item.id.uuidString)
            }
        }
    }

    /// Standard input as a name, refused as soon as it passes the limit (`yes | grocery add
    /// --stdin` ends at once rather than reading for ever).
    static func readStandardInput() throws -> String {
        var bytes: [UInt8] = []
        let limit = GroceryLimits.maxNameBytes
        while let chunk = try FileHandle.standardInput.read(upToCount: limit + 1 - bytes.count), !chunk.isEmpty {
            bytes.append(contentsOf: chunk)
            if bytes.count > limit { throw GroceryError.nameTooLongInput(source: "standard input", limit: limit) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `grocery list`
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the items, sorted, with short ids.",
        discussion: """
            One query (kMDItemFSName LIKE 'Item_*' in Documents), then each item file is read.
            Files in Documents that are not items (notes.txt, Item_milk, directories) are ignored.
            Short ids are the shortest prefixes (at least \(GroceryLimits.minimumShortIDLength) characters) that tell the
            items apart; names show newlines as ↵.
            Examples:
              $ grocery list
              ID    NAME
              7B00  free-range eggs
              3F2A  milk
              $ grocery list --sort created --json
              {"created":"2026-11-22T10:00:03.120Z","displayName":"milk","id":"3F2A9C1E-…",…}
            With --store package an IMAGE column says which items have a picture.
            JSON fields: docs/grocery.md.
            """
    )

    @Option(help: ArgumentHelp("Sort by name (case-insensitive) or by creation (oldest first).", valueName: "order"))
    var sort: Choice<GroceryItemOrder> = .init(.name)

    @Flag(help: "Print one JSON object per item and line.")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (items, format) = try await options.withList { (try await $0.items(), $0.format) }
        let sorted = sort.value.sorted(items)
        let shortIDs = GroceryItemID.shortIDs(for: items.map(\.id))
        if json {
            if !sorted.isEmpty { Output.line(Output.jsonLines(ItemFormat.jsonItems(sorted, shortIDs: shortIDs))) }
            return
        }
        guard !sorted.isEmpty else {
            if Output.isTerminal { Output.error("the list is empty; add an item with `grocery add NAME`") }
            return
        }
        Output.line(ItemFormat.table(sorted, shortIDs: shortIDs, format: format))
    }
}

/// `grocery show ID`
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one item: full id, name, dates, image, file.",
        discussion: """
            ID is any unambiguous prefix of the item's id (case does not matter).
            Example:
              $ grocery show 3f2a
              id        3F2A9C1E-5D7B-4C11-9E0A-6B1F2C3D4E5F
              name      milk
              created   2026-11-22 10:00:03
              modified  2026-11-22 10:00:03
              file      /home/me/.local/share/ubiquity/containers/com.example.grocery/Documents/Item_3F2A9C1E-…
            """
    )

    @Argument(help: .itemID)
    var id: String

    @Flag(help: "Print the item as one JSON object (the shape of a `list --json` line).")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let prefix = id
        let (item, all, file) = try await options.withList { list in
            let items = try await list.items()
            let item = try GroceryList.item(matching: prefix, in: items)
            return (item, items.map(\.id), list.format == .files ? list.files.path(of: item.id) : list.package.path)
        }
        let shortID = GroceryItemID.shortIDs(for: all)[item.id] ?? item.id.uuidString
        if json {
            Output.line(Output.json(ItemFormat.JSONItem(item: item, shortID: shortID)))
            return
        }
        var rows = [["id", item.id.uuidString],
                    ["name", Output.oneLine(item.displayName) + (item.isTruncated ? " (truncated: the file is longer than \(GroceryLimits.maxNameBytes) bytes)" : "")],
                    ["short id", shortID],
                    ["created", item.created.map(Output.dateTime) ?? "-"],
                    ["modified", item.modified.map(Output.dateTime) ?? "-"]]
        if options.store.value == .package { rows.append(["image", item.image?.rawValue ?? "none"]) }
        rows.append([options.store.value == .files ? "file" : "package", file])
        Output.line(Output.table(header: nil, rows: rows))
    }
}

/// `grocery rename ID NAME`
struct RenameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Give an item a new name.",
        discussion: """
            In file mode the item file is rewritten atomically (a temporary file renamed over it),
            so watchers see one change: "renamed OLD → NEW".
            Example:
              $ grocery rename 3f2a "oat milk"
            """
    )

    @Argument(help: .itemID)
    var id: String

    @Argument(help: ArgumentHelp("The new name.", valueName: "name"))
    var name: String

    @OptionGroup var options: StoreOptions

    func run() async throws {
        try await options.withItem(matching: id) { list, item in try list.rename(item, to: name) }
    }
}

/// `grocery delete ID...`
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete items.",
        discussion: """
            Every id is resolved before anything is deleted, so a typo deletes nothing.
            Example:
              $ grocery delete 3f2a 7b00
            """
    )

    @Argument(help: ArgumentHelp("The items' ids or prefixes of them.", valueName: "id"))
    var ids: [String]

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let prefixes = ids
        try await options.withList { list in
            let items = try await list.items()
            let ids = try prefixes.map { try GroceryList.item(matching: $0, in: items).id }
            try list.delete(Array(Set(ids)))
        }
    }
}
