import ArgumentParser

/// What `ubiq store relate` and `ubiq store unrelate` both take: the store, the relationship and
/// its two rows (each an id, or a key in a table unique by meaning).
struct StoreRelationOptions: ParsableArguments {
    @Argument(help: "The store's name.")
    var store: String

    @Argument(help: "The relationship, by its from end's name.")
    var relationship: String

    @Argument(help: "A row of the relationship's from table.")
    var from: String

    @Argument(help: "A row of the relationship's to table.")
    var to: String

    @OptionGroup var options: ContainerOptions
}
