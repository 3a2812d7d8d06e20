import ArgumentParser
import FoundationEssentials
import GroceryStore
import UbiquitySystem

/// `grocery add NAME...`
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add items; prints each new item's id.",
        usage: "grocery add [<options>] [<name> ...]",
        discussion: """
            Each name becomes one item: a new file Documents/Item_<UUID> whose content is the name in \
            UTF-8, written atomically (or a new row of the package). Any text works: emoji, right-to-left \
            scripts, newlines (quote them, or use --stdin); an empty name shows as "Unnamed item". Names \
            are limited to \(GroceryLimits.maxNameBytes) bytes of UTF-8.

            Examples:
              $ grocery add milk "free-range eggs" 🍎
              $ printf 'flour\\n(the strong one)' | grocery add --stdin
              $ grocery add carrots --tag mall --tag "green grocer" --store relational
            """
    )

    @Argument(help: ArgumentHelp("The names of the new items.", valueName: "name"))
    var names: [String] = []

    @Option(name: .customLong("tag"), help: ArgumentHelp("Tag every new item (store mode; repeat for more tags).", valueName: "tag"))
    var tags: [String] = []

    @Flag(help: "Read one more name from standard input: all of it, newlines included.")
    var stdin = false

    @Flag(help: "Print one JSON object per new item: {\"id\": ..., \"name\": ...}.")
    var json = false

    @OptionGroup var options: StoreOptions

    func validate() throws {
        guard !names.isEmpty || stdin else { throw ValidationError("give at least one name, or --stdin") }
    }

    func run() async throws {
        var names = self.names
        if stdin {
            do { names.append(try Self.readStandardInput()) } catch { throw Failure.exit(for: error) }
        }
        let all = names, tags = self.tags
        let added = try await options.withList { try await $0.add(all, tags: tags) }
        for item in added {
            if json {
                struct Added: Encodable { let id: String, name: String }
                Output.line(Output.json(Added(id: item.id.uuidString, name: item.name)))
            } else {
                Output.line(item.id.uuidString)
            }
        }
    }

    /// Standard input as a name, refused as soon as it passes the limit (`yes | grocery add
    /// --stdin` ends at once rather than reading for ever).
    static func readStandardInput() throws -> String {
        let limit = GroceryLimits.maxNameBytes
        // At most limit + 1 bytes are read: one more than a name may have says it is too long.
        let bytes = try Directory.readAll(0, limit: limit, path: "standard input")
        if bytes.count > limit { throw GroceryError.nameTooLongInput(source: "standard input", limit: limit) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
