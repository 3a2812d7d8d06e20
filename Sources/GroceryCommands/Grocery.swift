// The root of `grocery` (GroceryCommands.swift says what the module owns); GroceryCommandLine runs it.
import ArgumentParser
import CommandLineSupport
import UbiquityProtocol

struct Grocery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grocery",
        abstract: "A shopping list kept in a Ubiquity container, live across processes.",
        discussion: """
            Each item is a file Documents/Item_<UUID> holding its name (the default), a row of the one \
            package Documents/grocery.gro that also holds pictures (--store package), or a row of the \
            container's relational store, with tags (--store relational). Ids are shown shortened; any \
            unambiguous prefix of one works.

            Walk-through (the daemon runs in another terminal: `make run`):
              $ grocery add milk "free-range eggs"
              3F2A9C1E-5D7B-4C11-9E0A-6B1F2C3D4E5F
              7B00D1E5-9A2C-4F3E-8D1B-0C2E4F6A8B9D
              $ grocery list
              ID    NAME
              7B00  free-range eggs
              3F2A  milk
              $ grocery sort created   # on every device, through the key-value store
              $ grocery rename 3f "oat milk"
              $ grocery watch          # in a third terminal: a live list
              $ grocery delete 7B00
              $ grocery conflicts 3f   # after two devices renamed it at once
              $ grocery resolve 3f --pick 2
              $ grocery add carrots --tag mall --store relational
              $ grocery list --tag mall --store relational

            Exit status: 0 success, 1 a file operation or the daemon failed, 2 invalid input (unknown or \
            ambiguous id, name or image too large), 3 daemon not running or connection lost, 64 usage error.

            Details: docs/grocery.md.
            """,
        version: UbiquityVersion.string,
        subcommands: [StatusCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self, RenameCommand.self,
                      DeleteCommand.self, WatchCommand.self, ImageCommand.self, ConflictsCommand.self, ResolveCommand.self,
                      SortCommand.self, TagCommand.self, UntagCommand.self, TagsCommand.self]
    )

    static func main() async {
        // `list` reads 10,000 item files from four threads: with an arena each, grown a page at a
        // time (an `mprotect` each), `grocery list` made 1,400 such calls; 640 with one heap.
        MallocTuning.oneGrowingHeap()
        await main(globalOptions.hoisted(Array(CommandLine.arguments.dropFirst())))
    }

    /// Options every command takes, also accepted before the subcommand (`grocery --socket P list`).
    static let globalOptions = GlobalOptions(valued: ["--socket", "--timeout", "--container", "--store"], flags: ["--json"])
}
