import ArgumentParser
import UbiquityProtocol

/// `ubiq store insert STORE TABLE COLUMN=VALUE…`.
struct StoreInsertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Insert a row; prints its id once it is on disk.",
        usage: "ubiq store insert [<options>] <store> <table> <column=value> ...",
        discussion: """
            Each value is read by its column's type in the store's schema: string as it is, \
            integer a whole number, double a number, bool true or false, date ISO 8601 \
            (2026-01-01, 2026-01-01T10:00:00Z) or milliseconds since 1970, data base64, json any \
            JSON. A column left out has no value. The id is --id's, or for a table unique by \
            meaning (a tag) the one its key gives — inserting it again updates it — or a random one.

            Examples:
              $ ubiq store insert grocery items name=carrots quantity=2 created=2026-01-01
              3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b7d
              $ ubiq store insert grocery tags name=mall
              98471ebd5834f35ea8bba0281d3c03c2
              $ ubiq store insert grocery items name=bread quantity=two
              ubiq: 'items.quantity' is an integer column: 'two' is not a whole number

            Exit status: 0 saved, 1 the daemon refused (a missing column that may not be empty, \
            say), 2 a table, column or value that does not fit the schema, 3 daemon not running.
            """
    )

    @Argument(help: "The store's name.")
    var store: String

    @Argument(help: "The table.")
    var table: String

    @Argument(help: ArgumentHelp("A column's value, COLUMN=VALUE.", valueName: "column=value"))
    var values: [String] = []

    @Option(help: ArgumentHelp("The row's id, 32 hex digits (default: from the key, or random).", valueName: "id"))
    var id: String?

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let table = self.table, values = self.values, id = self.id
        let saved = try await StoreWrite.save(store: store, options: options) { schema throws(StoreValueTextError) in
            let typed = try StoreValueText.values(values, of: try StoreValueText.table(table, in: schema))
            return .insert(table: table, id: id, values: typed)
        }
        try StoreWrite.print(saved, json: options.json)
    }
}
