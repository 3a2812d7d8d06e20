import Foundation
import Testing
import UbiquityKit
import UbiquityTesting

/// File names in a shared container are other people's text: `ubiq` shows them on one line with
/// control characters replaced, so a name cannot recolour, clear or forge the terminal's output.
/// `--json` keeps them exact.
@Suite(.ownThreads) struct TerminalSafetyTests {
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

    @Test func namesWithoutControlCharactersAreShownAsTheyAreAndOthersScalarByScalar() {
        // The rule, scalar by scalar (what oneLine does for every name that has a control character).
        func reference(_ text: String) -> String {
            var result = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\n": result.unicodeScalars.append("↵")
                case "\t": result.unicodeScalars.append("⇥")
                case _ where scalar.properties.generalCategory == .control: result.unicodeScalars.append("\u{FFFD}")
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result
        }
        var texts = ["milk", "", "Käse 🍎", "a\u{7F}b", "a\u{80}b", "a\u{85}b", "a\u{9F}b", "a\u{A0}b", "\u{C2}", "é\u{9F}",
                     "tab\there", "new\nline", "\u{1B}[2J", "\u{2028}", "👩‍👩‍👧", "x\u{0}y"]
        texts += (0x00...0x2FF).map { String(UnicodeScalar($0)!) + "é" }
        for text in texts { #expect(DisplayText.oneLine(text) == reference(text), "\(text.debugDescription)") }
    }
}
