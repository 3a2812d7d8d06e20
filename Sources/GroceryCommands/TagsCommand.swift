import ArgumentParser
import GroceryStore

/// `grocery tags` (store mode)
struct TagsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "List the tags and how many items carry each (store mode).",
        usage: "grocery tags [<options>]",
        discussion: """
            Example:
              $ grocery tags --store relational
              ITEMS  TAG
              0      green grocer
              0      grocery store
              2      mall
            """
    )

    @Flag(help: "Print one JSON object per tag and line: {\"id\": ..., \"name\": ..., \"items\": ...}.")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let tags = try await options.withList { list in try await list.storeTable().tags() }
        if json {
            struct Line: Encodable { let id: String, name: String, items: Int }
            for tag in tags { Output.line(Output.json(Line(id: tag.id, name: tag.name, items: tag.itemCount))) }
            return
        }
        Output.line(Output.table(header: ["ITEMS", "TAG"], rows: tags.map { [String($0.itemCount), Output.oneLine($0.name)] }))
    }
}
