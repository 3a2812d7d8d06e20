import ArgumentParser
import GroceryStore

/// `<id>` and the ``StoreOptions``: what the commands that act on one item take (`show`, `rename`,
/// `conflicts`, `resolve`, `image set|get|remove`).
struct ItemOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The item's id or a prefix of it.", valueName: "id"))
    var id: String

    @OptionGroup var options: StoreOptions

    /// Opens the list, resolves ``id`` to one item's id (unknown or ambiguous: exit 2) and runs
    /// `body` on it.
    func withItem<T: Sendable>(_ body: (GroceryList, GroceryItemID) async throws -> T) async throws -> T {
        let prefix = id
        return try await options.withList { list in try await body(list, try await list.item(matching: prefix).id) }
    }
}
