import ArgumentParser
import GroceryStore

/// `grocery tag ID NAME...` (store mode)
struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Tag an item (store mode); a tag that does not exist is created.",
        usage: "grocery tag [<options>] <id> <tag> ...",
        discussion: """
            Tags are rows of the store unique by their name (case and spacing aside), so two devices \
            that tag with "mall" make one tag. Every list starts with the tags mall, "grocery store" and \
            "green grocer". One transaction: all the tags or none.

            Example:
              $ grocery tag 3f2a mall "green grocer" --store relational
            """
    )

    @OptionGroup var target: ItemOptions

    @Argument(help: ArgumentHelp("The tags' names.", valueName: "tag"))
    var tags: [String]

    func run() async throws {
        let tags = self.tags
        try await target.withItem { list, item in try await list.storeTable().tag(item, with: tags) }
    }
}
