import ArgumentParser

/// `ubiq store unrelate STORE RELATIONSHIP FROM TO`.
struct StoreUnrelateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unrelate",
        abstract: "Take away the relation of two rows; returns once it is on disk.",
        usage: "ubiq store unrelate [<options>] <store> <relationship> <from> <to>",
        discussion: """
            The rows are named as for relate: an id, or a key in a table unique by meaning.

            Example:
              $ ubiq store unrelate grocery tags 3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b7d mall
            """
    )

    @OptionGroup var relation: StoreRelationOptions

    func run() async throws { try await StoreRelateCommand.change(relate: false, relation) }
}
