import Foundation
import GroceryStore
import Testing
import UbiquityTesting

/// `grocery list`, `conflicts` and `resolve` against the real daemon, with the conflict copies a
/// sync engine leaves (made here the way Syncthing names them; the two-device tests make them
/// with real Syncthing).
@Suite(.ownThreads) struct ConflictCommandTests {
    @Test func listMarksTheItemConflictsShowsEveryVersionAndResolveKeepsTheChosenOne() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let id = GroceryItemID()
        try daemon.place(id.fileName, contents: "oat milk")
        try daemon.place(GroceryItemID().fileName, contents: "eggs")
        try daemon.place(id.fileName + ".sync-conflict-20261122-100001-NOFER4Z", contents: "whole milk")
        let short = String(id.uuidString.prefix(8))

        let list = try grocery.run(["list", "--socket", daemon.socket])
        #expect(list.status == 0, "\(list.stderr)")
        let milkLine = list.stdout.split(separator: "\n").first { $0.contains("oat milk") }
        #expect(milkLine?.contains("⚠ in conflict") == true, "\(list.stdout)")
        #expect(list.stdout.split(separator: "\n").first { $0.contains("eggs") }?.contains("conflict") == false)
        #expect(!list.stdout.contains("whole milk"), "a conflict copy is never an item")

        let json = try grocery.run(["conflicts", short, "--json", "--socket", daemon.socket])
        #expect(json.status == 0, "\(json.stderr)")
        let versions = json.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(versions.map { $0["name"] as? String } == ["oat milk", "whole milk"])
        #expect(versions.map { $0["current"] as? Bool } == [true, false])
        #expect(versions.last?["device"] as? String == "NOFER4Z")
        let table = try grocery.run(["conflicts", short, "--socket", daemon.socket])
        #expect(table.stdout.contains("2  whole milk"), "\(table.stdout)")

        let refused = try grocery.run(["resolve", short, "--pick", "3", "--socket", daemon.socket])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("there is no version 3: the item has 2"), "\(refused.stderr)")
        let neither = try grocery.run(["resolve", short, "--socket", daemon.socket])
        #expect(neither.status == 64, "\(neither.stderr)")

        let resolved = try grocery.run(["resolve", short, "--name", "whole milk", "--socket", daemon.socket])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout == "kept version 2: whole milk\n")
        #expect(try String(contentsOfFile: daemon.documents() + "/" + id.fileName, encoding: .utf8) == "whole milk")
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()).count == 2)
        let after = try grocery.run(["list", "--socket", daemon.socket])
        #expect(!after.stdout.contains("conflict"), "\(after.stdout)")
        let again = try grocery.run(["resolve", short, "--newest", "--socket", daemon.socket])
        #expect(again.status == 2)
        #expect(again.stderr.contains("is not in conflict"))
    }

    /// A conflict of the package is shown on the items that differ between its versions.
    @Test func inPackageModeTheItemsThatDifferAreMarked() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let added = try grocery.run(["add", "milk", "eggs", "--store", "package", "--socket", daemon.socket])
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        let package = daemon.documents() + "/grocery.gro"
        let items = try String(contentsOfFile: package + "/items.json", encoding: .utf8)
        let edited = items.replacingOccurrences(of: "\"eggs\"", with: "\"brown eggs\"")
        #expect(edited != items)
        try placeAtomically(package + "/items.sync-conflict-20261122-100001-NOFER4Z.json", contents: edited, staging: daemon.root)

        let list = try grocery.run(["list", "--store", "package", "--socket", daemon.socket])
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.first { $0.contains("eggs") }?.contains("⚠ in conflict") == true, "\(list.stdout)")
        #expect(lines.first { $0.contains("milk") }?.contains("conflict") == false, "\(list.stdout)")

        let eggs = String(ids[1].prefix(8))
        let table = try grocery.run(["conflicts", eggs, "--store", "package", "--socket", daemon.socket])
        #expect(table.stdout.contains("1  eggs"), "\(table.stdout)")
        #expect(table.stdout.contains("2  brown eggs"), "\(table.stdout)")
        let resolved = try grocery.run(["resolve", eggs, "--pick", "2", "--store", "package", "--socket", daemon.socket])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let after = try grocery.run(["list", "--store", "package", "--socket", daemon.socket])
        #expect(after.stdout.contains("brown eggs") && !after.stdout.contains("conflict"), "\(after.stdout)")
    }
}
