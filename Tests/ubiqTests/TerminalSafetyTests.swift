import Foundation
import Testing
import UbiquityTesting

/// File names in a shared container are other people's text: `ubiq` shows them on one line with
/// control characters replaced, so a name cannot recolour, clear or forge the terminal's output.
/// `--json` keeps them exact.
@Suite struct TerminalSafetyTests {
    static let hostile = "Item_\u{1B}[31mred\u{1B}[2J\nforged line"

    @Test func escapesAndNewlinesInNamesNeverReachTheTerminal() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        try daemon.place(Self.hostile, contents: "x")
        let table = try ubiq.run(["query", "--socket", daemon.socket, "name LIKE 'Item_*'", "--attr", "name"])
        #expect(table.status == 0)
        #expect(!table.stdout.contains("\u{1B}"), "\(table.stdout.debugDescription)")
        #expect(table.stdout.contains("Item_�[31mred�[2J↵forged line"), "\(table.stdout.debugDescription)")
        #expect(table.stdout.split(separator: "\n").count == 2)     // the header and one row, no forged line

        let json = try ubiq.run(["query", "--json", "--socket", daemon.socket, "name LIKE 'Item_*'"])
        #expect(json.stdout.contains(#"Item_\u001b[31mred\u001b[2J\nforged line"#), "\(json.stdout)")
    }
}
