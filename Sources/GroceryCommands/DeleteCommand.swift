import ArgumentParser
import FoundationEssentials
import GroceryStore

/// `grocery delete ID...`
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete items.",
        usage: "grocery delete [<options>] <id> ...",
        discussion: """
            Every id is resolved before anything is deleted, so a typo deletes nothing.

            Example:
              $ grocery delete 3f2a 7b00
            """
    )

    @Argument(help: ArgumentHelp("The items' ids or prefixes of them.", valueName: "id"))
    var ids: [String]

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let prefixes = ids
        try await options.withList { list in
            let items = try await list.items()
            let ids = try prefixes.map { try GroceryList.item(matching: $0, in: items).id }
            try await list.delete(Array(Set(ids)))
        }
    }
}
