import ArgumentParser
import Foundation
import GroceryStore

/// `grocery rename ID NAME`
struct RenameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Give an item a new name.",
        usage: "grocery rename [<options>] <id> <name>",
        discussion: """
            In file mode the item file is rewritten atomically (a temporary file renamed over it), so \
            watchers see one change: "renamed OLD → NEW".

            Example:
              $ grocery rename 3f2a "oat milk"
            """
    )

    @Argument(help: .itemID)
    var id: String

    @Argument(help: ArgumentHelp("The new name.", valueName: "name"))
    var name: String

    @OptionGroup var options: StoreOptions

    func run() async throws {
        try await options.withItem(matching: id) { list, item in try list.rename(item, to: name) }
    }
}
