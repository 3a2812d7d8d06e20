import ArgumentParser
import UbiquityProtocol

/// `ubiq store delete STORE TABLE ROW`.
struct StoreDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a row; returns once it is on disk.",
        usage: "ubiq store delete [<options>] <store> <table> <row>",
        discussion: """
            The row's relationships go with it.

            Examples:
              $ ubiq store delete grocery items 3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b7d
              $ ubiq store delete grocery tags mall

            Exit status: 0 saved, 1 the daemon refused, 2 a table or row that does not fit the \
            schema, 3 daemon not running.
            """
    )

    @OptionGroup var target: StoreRowArguments

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let table = target.table, row = target.row
        let saved = try await StoreWrite.save(store: target.store, options: options) { schema throws(StoreValueTextError) in
            .delete(table: table, id: try StoreValueText.row(row, of: try StoreValueText.table(table, in: schema)))
        }
        try StoreWrite.print(saved, json: options.json)
    }
}
