import ArgumentParser

/// What `ubiq store fetch` and `ubiq store watch` both take: the store, the table, the rows wanted
/// (`--where`, `--predicate`), the relationship ends each row carries, the order and a limit.
struct StoreFetchOptions: ParsableArguments {
    @Argument(help: "The store's name.")
    var store: String

    @Argument(help: "The table.")
    var table: String

    @Option(name: .customLong("where"), help: ArgumentHelp("A condition, COLUMN OP VALUE (repeatable).", valueName: "condition"))
    var conditions: [String] = []

    @Option(help: ArgumentHelp("A predicate over the table's columns, as ubiq query takes.", valueName: "predicate"))
    var predicate: String?

    @Option(help: ArgumentHelp("A relationship end whose related row ids each row carries (repeatable).", valueName: "end"))
    var related: [String] = []

    @Option(help: ArgumentHelp("A sort key, COLUMN, COLUMN:asc or COLUMN:desc (repeatable).", valueName: "key"))
    var sort: [String] = []

    @Option(help: "At most this many rows.")
    var limit: Int?

    @OptionGroup var options: ContainerOptions
}
