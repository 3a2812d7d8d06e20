import ArgumentParser
import FoundationEssentials
import GroceryStore

/// `grocery list`
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the items, sorted, with short ids.",
        usage: "grocery list [<options>]",
        discussion: """
            One query (kMDItemFSName LIKE 'Item_*' in Documents), then each item file is read. Files in \
            Documents that are not items (notes.txt, Item_milk, directories) are ignored. Short ids are \
            the shortest prefixes (at least \(GroceryLimits.minimumShortIDLength) characters) that tell \
            the items apart; names show newlines as ↵.

            Examples:
              $ grocery list
              ID    NAME
              7B00  free-range eggs
              3F2A  milk
              $ grocery list --sort created --json
              {"created":"2026-11-22T10:00:03.120Z","displayName":"milk",…}

            When a sync engine shares the container (ubiquityd.toml's [sync]), file mode marks the items \
            no other device holds yet ("not on other devices yet": added or changed here while the others \
            were away) and those a newer version of which is on its way ("updating from another device"); \
            `grocery status` shows each device and what it still needs.

            With --store package an IMAGE column says which items have a picture; with --store relational \
            a TAGS column lists each item's tags, and --tag NAME lists only the items that carry it. \
            JSON fields: docs/grocery.md.
            """
    )

    @Option(help: ArgumentHelp(
        "Sort by name (case-insensitive) or by creation (oldest first); default: the order chosen with `grocery sort` on any device, else name.",
        valueName: "order"))
    var sort: Choice<GroceryItemOrder>?

    @Option(help: ArgumentHelp("Only the items with this tag (store mode).", valueName: "tag"))
    var tag: String?

    @Flag(help: "Print one JSON object per item and line.")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let chosen = sort?.value, tag = self.tag
        var (items, format, order) = try await options.withList { list in
            let order = if let chosen { chosen } else { try await list.sortOrder() }
            if let tag { return (try await list.storeTable().items(tagged: tag), list.format, order) }
            // The table sorted by name shows no dates: not asking for them halves the daemon's answer.
            // Sync marks only where a sync engine shares the container (one more short request).
            let sync = list.format == .files ? try await list.isSynced() : false
            return (try await list.items(dates: json || order == .created, sync: sync), list.format, order)
        }
        // The short ids on another thread while this one sorts: neither needs the other, and
        // with 10,000 items each is milliseconds of the time after the last file is read.
        let ids = items.map(\.id)
        async let abbreviated = GroceryItemID.shortIDs(for: ids)
        order.sort(&items)       // in place: the items are moved, not copied
        let shortIDs = await abbreviated
        if json {
            if !items.isEmpty { Output.line(Output.jsonLines(ItemFormat.jsonItems(items, shortIDs: shortIDs, format: format))) }
            return
        }
        guard !items.isEmpty else {
            if Output.isTerminal { Output.error("the list is empty; add an item with `grocery add NAME`") }
            return
        }
        Output.line(ItemFormat.table(items, shortIDs: shortIDs, format: format))
    }
}
