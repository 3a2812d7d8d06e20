import ArgumentParser
import FoundationEssentials
import GroceryStore

/// `grocery show ID`
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one item: full id, name, dates, image, file.",
        usage: "grocery show [<options>] <id>",
        discussion: """
            ID is any unambiguous prefix of the item's id (case does not matter).

            Example:
              $ grocery show 3f2a
              id        3F2A9C1E-5D7B-4C11-9E0A-6B1F2C3D4E5F
              name      milk
              short id  3F2A
              created   2026-11-22 10:00:03
              modified  2026-11-22 10:00:03
              file      …/com.example.grocery/Documents/Item_3F2A9C1E-5D7B-4C11-9E0A-6B1F…
            """
    )

    @Flag(help: "Print the item as one JSON object (the shape of a `list --json` line).")
    var json = false

    @OptionGroup var target: ItemOptions

    func run() async throws {
        let prefix = target.id
        let (item, all, file) = try await target.options.withList { list in
            let items = try await list.items()
            let item = try GroceryList.item(matching: prefix, in: items)
            let place = switch list.format {
            case .files: list.files.path(of: item.id)
            case .package: list.package.path
            case .relational: "ubiquity-store://\(list.container)/\(GroceryTable.storeName)/items/\(item.id.rowID)"
            }
            return (item, items.map(\.id), place)
        }
        let shortID = GroceryItemID.shortIDs(for: all)[item.id] ?? item.id.uuidString
        if json {
            Output.line(Output.json(ItemFormat.JSONItem(item: item, shortID: shortID, withTags: target.options.store.value == .relational)))
            return
        }
        var rows = [["id", item.id.uuidString],
                    ["name", Output.oneLine(item.displayName) + (item.isTruncated ? " (truncated: the file is longer than \(GroceryLimits.maxNameBytes) bytes)" : "")],
                    ["short id", shortID],
                    ["created", item.created.map(Output.dateTime) ?? "-"],
                    ["modified", item.modified.map(Output.dateTime) ?? "-"]]
        switch target.options.store.value {
        case .files: rows.append(["file", file])
        case .package: rows += [["image", item.image?.rawValue ?? "none"], ["package", file]]
        case .relational: rows += [["tags", ItemFormat.tagList(item.tags)], ["row", file]]
        }
        Output.line(Output.table(header: nil, rows: rows))
    }
}
