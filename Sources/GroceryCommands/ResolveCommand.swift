import ArgumentParser
import FoundationEssentials
import GroceryStore

/// `grocery resolve ID --pick N | --name NAME | --newest`
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "End an item's conflict by keeping one version, on every device.",
        usage: "grocery resolve [<options>] <id> (--pick <n> | --name <name> | --newest)",
        discussion: """
            Keeps the chosen version (numbers as `grocery conflicts ID` shows them) and removes the \
            others. The sync engine carries the result to your other devices, where the conflict ends \
            too. A version that changed while you chose (another device saved again) is refused: look \
            at `grocery conflicts ID` again.

            Examples:
              $ grocery resolve 3f2a --pick 2
              kept version 2: whole milk
              $ grocery resolve 3f2a --name "oat milk"
              $ grocery resolve 3f2a --newest

            In package mode the chosen version is the whole package's: every item takes its state \
            from that version.
            """
    )

    @Option(help: ArgumentHelp("Keep version N of `grocery conflicts ID` (1 is the current one).", valueName: "n"))
    var pick: Int?

    @Option(help: ArgumentHelp("Keep the version in which the item has this name.", valueName: "name"))
    var name: String?

    @Flag(help: "Keep the most recently saved version.")
    var newest = false

    @Flag(help: "Print the kept version as one JSON object.")
    var json = false

    @OptionGroup var target: ItemOptions

    func validate() throws {
        let chosen = [pick != nil, name != nil, newest].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("say which version to keep: exactly one of --pick N, --name NAME or --newest") }
        if let pick, pick < 1 { throw ValidationError("--pick takes a version number from `grocery conflicts ID`, 1 or more") }
    }

    func run() async throws {
        let choice: GroceryResolution = if let pick { .pick(pick) } else if let name { .name(name) } else { .newest }
        let kept = try await target.withItem { list, item in try await list.resolve(item, keeping: choice) }
        if json {
            Output.line(Output.json(ConflictsCommand.VersionLine(kept)))
        } else {
            Output.line("kept version \(kept.number): " + (kept.name.map { Output.oneLine(GroceryName.display($0)) } ?? "(absent)"))
        }
    }
}
