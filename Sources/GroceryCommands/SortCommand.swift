import ArgumentParser
import FoundationEssentials
import GroceryStore

/// `grocery sort [ORDER]`: the list's sort order, kept in the container's key-value store.
struct SortCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sort",
        abstract: "Show or choose how list and watch order items, on every device.",
        usage: "grocery sort [<options>] [<order>]",
        discussion: """
            The choice is kept in the container's key-value store, so it follows you: choose \
            "created" here and `grocery list` on your other device sorts by creation too, once the \
            sync engine has carried it over. `list --sort` and `watch --sort` still override it once.

            Examples:
              $ grocery sort
              name
              $ grocery sort created
              $ grocery sort --json
              {"sortOrder":"created"}

            Without a stored choice the order is "name".
            """
    )

    @Argument(help: ArgumentHelp("name or created; omitted: print the current order.", valueName: "order"))
    var order: Choice<GroceryItemOrder>?

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let chosen = order?.value
        let current = try await options.withList { list in
            if let chosen {
                try await list.setSortOrder(chosen)
                return chosen
            }
            return try await list.sortOrder()
        }
        if json { Output.line(#"{"sortOrder":"\#(current.rawValue)"}"#) }
        else if chosen == nil { Output.line(current.rawValue) }
    }
}
