import ArgumentParser
import UbiquityProtocol

/// `ubiq store delete STORE TABLE ROW`.
struct StoreDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a row; returns once it is on disk.",
        usage: "ubiq store delete [<options>] <store> <table> <row>",
        discussion: """
            ROW is the row's id (32 hex digits) or, for a table unique by meaning with one key \
            column, that key (a tag's name). Its relationships go with it.

            Examples:
              $ ubiq store delete grocery items 3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b7d
              $ ubiq store delete grocery tags mall

            Exit status: 0 saved, 1 the daemon refused, 2 a table or row that does not fit the \
            schema, 3 daemon not running.
            """
    )

    @Argument(help: "The store's name.")
    var store: String

    @Argument(help: "The table.")
    var table: String

    @Argument(help: "The row: its id, or its key in a table unique by meaning.")
    var row: String

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let table = self.table, row = self.row
        let saved = try await StoreWrite.save(store: store, options: options) { schema throws(StoreValueTextError) in
            .delete(table: table, id: try StoreValueText.row(row, of: try StoreValueText.table(table, in: schema)))
        }
        try StoreWrite.print(saved, json: options.json)
    }
}
