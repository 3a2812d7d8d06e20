import ArgumentParser
import FoundationEssentials
import GroceryStore
import UbiquityKit

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

    @OptionGroup var target: ItemOptions

    @Argument(help: ArgumentHelp("The new name.", valueName: "name"))
    var name: String

    func run() async throws {
        let outcome = try await target.withItem { list, item in try await list.rename(item, to: name) }
        if case .savedAsConflictVersion(let path)? = outcome {
            // Someone else renamed it first: theirs stays, ours is kept beside it, nothing is lost.
            Output.error("the item changed meanwhile; the new name is kept as a conflict version (\(path)): see `grocery conflicts`")
        }
    }
}
