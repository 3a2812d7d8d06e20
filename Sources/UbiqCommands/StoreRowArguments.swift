import ArgumentParser

/// The row `ubiq store update` and `ubiq store delete` act on: the store, the table, and the row
/// by its id or by its key in a table unique by meaning.
struct StoreRowArguments: ParsableArguments {
    @Argument(help: "The store's name.")
    var store: String

    @Argument(help: "The table.")
    var table: String

    @Argument(help: "The row: its id (32 hex digits) or, in a table unique by meaning with one key column, that key (a tag's name).")
    var row: String
}
