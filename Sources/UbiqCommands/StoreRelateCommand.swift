import ArgumentParser
import UbiquityProtocol
import UbiquityStore

/// `ubiq store relate STORE RELATIONSHIP FROM TO` (and, with `relate` false, `unrelate`).
struct StoreRelateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relate",
        abstract: "Relate two rows through a to-many relationship; returns once it is on disk.",
        usage: "ubiq store relate [<options>] <store> <relationship> <from> <to>",
        discussion: """
            RELATIONSHIP is named by its from end (tags: items to tags). FROM is a row of its \
            from table, TO of its to table: each an id (32 hex digits) or, for a table unique by \
            meaning with one key column, that key (a tag's name).

            Examples:
              $ ubiq store relate grocery tags 3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b7d mall
              $ ubiq store unrelate grocery tags 3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b7d mall

            Exit status: 0 saved, 1 the daemon refused (a row that does not exist, say), 2 a \
            relationship or row that does not fit the schema, 3 daemon not running.
            """
    )

    @OptionGroup var relation: StoreRelationOptions

    func run() async throws { try await Self.change(relate: true, relation) }

    /// A relate or unrelate of `from` and `to`, named by id or key.
    static func change(relate: Bool, _ relation: StoreRelationOptions) async throws {
        let store = relation.store, relationship = relation.relationship, from = relation.from, to = relation.to
        let options = relation.options
        let saved = try await StoreWrite.save(store: store, options: options) { schema throws(StoreValueTextError) in
            let r = try StoreValueText.relationship(relationship, in: schema)
            let fromID = try StoreValueText.row(from, of: try StoreValueText.table(r.from, in: schema))
            let toID = try StoreValueText.row(to, of: try StoreValueText.table(r.to, in: schema))
            return relate ? .relate(relationship: r.name, from: fromID, to: toID) : .unrelate(relationship: r.name, from: fromID, to: toID)
        }
        try StoreWrite.print(saved, json: options.json)
    }
}
