import ArgumentParser
import GroceryStore

/// `grocery untag ID NAME...` (store mode)
struct UntagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "untag",
        abstract: "Take tags off an item (store mode).",
        usage: "grocery untag [<options>] <id> <tag> ...",
        discussion: """
            A tag that does not exist is an error and nothing changes; one the item does not carry is \
            fine. The tags themselves stay (`grocery tags` lists them).

            Example:
              $ grocery untag 3f2a mall --store relational
            """
    )

    @OptionGroup var target: ItemOptions

    @Argument(help: ArgumentHelp("The tags' names.", valueName: "tag"))
    var tags: [String]

    func run() async throws {
        let tags = self.tags
        try await target.withItem { list, item in try await list.storeTable().untag(item, from: tags) }
    }
}
