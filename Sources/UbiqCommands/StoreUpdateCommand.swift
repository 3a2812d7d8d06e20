import ArgumentParser
import UbiquityProtocol

/// `ubiq store update STORE TABLE ROW COLUMN=VALUE…`.
struct StoreUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change columns of a row; returns once it is on disk.",
        usage: "ubiq store update [<options>] <store> <table> <row> <column=value> ...",
        discussion: """
            Values are read as for insert; --clear takes a column's value away. Columns not \
            named keep their values. Below, $ITEM is an item's id as insert printed it.

            Examples:
              $ ubiq store update grocery items $ITEM quantity=3 done=true
              $ ubiq store update grocery items $ITEM --clear note
              $ ubiq store update grocery tags mall color=green

            Exit status: 0 saved, 1 the daemon refused (no such row, say), 2 a table, column or \
            value that does not fit the schema, 3 daemon not running.
            """
    )

    @OptionGroup var target: StoreRowArguments

    @Argument(help: ArgumentHelp("A column's new value, COLUMN=VALUE.", valueName: "column=value"))
    var values: [String] = []

    @Option(help: ArgumentHelp("A column whose value to take away (repeatable).", valueName: "column"))
    var clear: [String] = []

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let table = target.table, row = target.row, values = self.values, clear = self.clear
        let saved = try await StoreWrite.save(store: target.store, options: options) { schema throws(StoreValueTextError) in
            let schemaTable = try StoreValueText.table(table, in: schema)
            var typed = try StoreValueText.values(values, of: schemaTable)
            for name in clear {
                guard schemaTable.column(name) != nil else {
                    throw StoreValueTextError("table '\(table)' has no column '\(name)' to clear")
                }
                guard typed[name] == nil else { throw StoreValueTextError("column '\(name)' is both set and cleared") }
                typed[name] = .null
            }
            guard !typed.isEmpty else { throw StoreValueTextError("nothing to change: give COLUMN=VALUE or --clear COLUMN") }
            return .update(table: table, id: try StoreValueText.row(row, of: schemaTable), values: typed)
        }
        try StoreWrite.print(saved, json: options.json)
    }
}
