import ArgumentParser
import FoundationEssentials
import GroceryStore

/// `grocery conflicts ID`
struct ConflictsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Show every version of an item that two devices changed at once.",
        usage: "grocery conflicts [<options>] <id>",
        discussion: """
            When two devices rename the same item while they cannot reach each other, the sync engine \
            keeps both: the item is marked "in conflict" in `list` and `watch`, and this shows its \
            versions, numbered for `grocery resolve --pick N`. Version 1 is the one in place now.

            Example:
              $ grocery conflicts 3f2a
              #  NAME        SAVED                DEVICE
              1  oat milk    2026-11-22 10:00:03  this device
              2  whole milk  2026-11-22 10:00:01  NOFER4Z
              $ grocery resolve 3f2a --pick 2

            In package mode the versions are the package's, and NAME is this item's name in each \
            ("(absent)": the item is not in that version). `list` marks every item whose name or \
            image differs between the versions.
            """
    )

    @Flag(help: "Print one JSON object per version and line.")
    var json = false

    @OptionGroup var target: ItemOptions

    func run() async throws {
        let versions = try await target.withItem { list, item in try await list.versions(of: item) }
        if json {
            Output.line(Output.jsonLines(versions.map(VersionLine.init)))
            return
        }
        let rows = versions.map { version in
            [String(version.number), version.name.map { Output.oneLine(GroceryName.display($0)) } ?? "(absent)",
             Output.dateTime(version.modified), version.isCurrent ? "this device" : version.device ?? "unknown"]
        }
        Output.line(Output.table(header: ["#", "NAME", "SAVED", "DEVICE"], rows: rows, styles: [.yellow]))
        if versions.count == 1, Output.isTerminal { Output.error("the item is not in conflict: it has one version") }
    }

    struct VersionLine: Encodable {
        let version: GroceryItemVersion
        init(_ version: GroceryItemVersion) { self.version = version }

        func encode(to encoder: any Encoder) throws {
            enum Keys: String, CodingKey { case number, name, current, saved, device, path }
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(version.number, forKey: .number)
            try c.encode(version.name, forKey: .name)
            try c.encode(version.isCurrent, forKey: .current)
            try c.encode(Output.iso(version.modified), forKey: .saved)
            try c.encode(version.device, forKey: .device)
            try c.encode(version.version.path, forKey: .path)
        }
    }
}
