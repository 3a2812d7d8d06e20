import Foundation
import Glibc
import GroceryStore
import Testing
import UbiquityTesting

/// `grocery watch --json` in one process while other `grocery` processes change the list.
@Suite(.ownThreads) struct WatchTests {
    @Test func fileModeShowsEachChangeFromAnotherProcessInOrder() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        try daemon.place("notes.txt", contents: "not an item")
        let watcher = try Watcher(["--socket", daemon.socket])
        let gathered = try #require(watcher.next())
        #expect(gathered["kind"] as? String == "gathered")
        #expect(gathered["count"] as? Int == 0)

        let add = try grocery.run(["add", "milk", "--socket", daemon.socket])
        #expect(add.status == 0)
        let id = add.stdout.trimmingCharacters(in: .newlines)
        let added = try #require(watcher.next())
        #expect(added["kind"] as? String == "added")
        #expect(added["id"] as? String == id)
        #expect(added["name"] as? String == "milk")
        #expect(added["at"] is String)

        #expect(try grocery.run(["rename", String(id.prefix(5)), "oat milk 🥛", "--socket", daemon.socket]).status == 0)
        let renamed = try #require(watcher.next())
        #expect(renamed["kind"] as? String == "renamed")
        #expect(renamed["id"] as? String == id)
        #expect(renamed["oldName"] as? String == "milk")
        #expect(renamed["name"] as? String == "oat milk 🥛")

        // Not an item: no line for it (the next line is the delete).
        try daemon.place("Item_bread", contents: "bread")
        #expect(try grocery.run(["delete", String(id.prefix(4)), "--socket", daemon.socket]).status == 0)
        let removed = try #require(watcher.next())
        #expect(removed["kind"] as? String == "removed")
        #expect(removed["id"] as? String == id)
        #expect(removed["name"] as? String == "oat milk 🥛")

        #expect(watcher.interrupt() == 0)
        #expect(watcher.process.terminationReason == .exit)
    }

    @Test func pipedWatchPrintsTheListThenOneTimedLinePerChange() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let milk = GroceryItemID(uuidString: "3F2A9C1E-0000-4000-8000-000000000001")!
        try daemon.place(milk.fileName, contents: "milk")
        let watcher = try Watcher(["--socket", daemon.socket], json: false)
        #expect(watcher.lines.next(within: 15) == "ID    NAME")
        #expect(watcher.lines.next(within: 15) == "3F2A  milk")
        #expect(try grocery.run(["rename", "3f2a", "two\nlines", "--socket", daemon.socket]).status == 0)
        let renamed = try #require(watcher.lines.next(within: 15))
        // HH:MM:SS, then the kind, the short id and OLD → NEW on one line (no colour when piped).
        #expect(renamed.range(of: #"^\d\d:\d\d:\d\d  renamed  3F2A  milk → two↵lines$"#, options: .regularExpression) != nil, "\(renamed)")
        #expect(try grocery.run(["delete", "3f2a", "--socket", daemon.socket]).status == 0)
        let removed = try #require(watcher.lines.next(within: 15))
        #expect(removed.hasSuffix("  removed  3F2A  two↵lines"))
        #expect(watcher.interrupt() == 0)
    }

    @Test func packageModeShowsChangesIncludingAnImage() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let png = daemon.directory + "/milk.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100))
            .write(to: URL(fileURLWithPath: png))
        let store = ["--store", "package", "--socket", daemon.socket]
        let watcher = try Watcher(store)
        #expect(try #require(watcher.next())["kind"] as? String == "gathered")

        let add = try grocery.run(["add", "milk", "eggs"] + store)
        #expect(add.status == 0, "\(add.stderr)")
        let ids = add.stdout.split(separator: "\n").map(String.init)
        let first = try #require(watcher.next()), second = try #require(watcher.next())
        #expect([first["kind"], second["kind"]].map { $0 as? String } == ["added", "added"])
        #expect([first["name"], second["name"]].map { $0 as? String } == ["eggs", "milk"])
        #expect(Set([first["id"], second["id"]].compactMap { $0 as? String }) == Set(ids))

        #expect(try grocery.run(["rename", ids[0], "oat milk"] + store).status == 0)
        let renamed = try #require(watcher.next())
        #expect(renamed["kind"] as? String == "renamed")
        #expect(renamed["oldName"] as? String == "milk")
        #expect(renamed["name"] as? String == "oat milk")

        let set = try grocery.run(["image", "set", String(ids[0].prefix(8)), png] + store)
        #expect(set.status == 0, "\(set.stderr)")
        let imageSet = try #require(watcher.next())
        #expect(imageSet["kind"] as? String == "imageSet")
        #expect(imageSet["id"] as? String == ids[0])
        #expect(imageSet["image"] as? String == "png")

        let list = try grocery.run(["list"] + store)
        #expect(list.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().joined(separator: " ") }
                == ["IMAGE NAME", "- eggs", "png oat milk"])
        let copy = daemon.directory + "/copy.png"
        #expect(try grocery.run(["image", "get", ids[0], copy] + store).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: png)))

        #expect(try grocery.run(["delete", ids[1]] + store).status == 0)
        let removed = try #require(watcher.next())
        #expect(removed["kind"] as? String == "removed")
        #expect(removed["name"] as? String == "eggs")
        // The package is the only thing in Documents.
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()) == ["grocery.gro"])
        #expect(watcher.interrupt() == 0)
    }

    @Test func imagesAreValidatedBySignatureAndSize() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let store = ["--store", "package", "--socket", daemon.socket]
        let id = try grocery.run(["add", "milk"] + store).stdout.trimmingCharacters(in: .newlines)
        let text = daemon.directory + "/milk.png"
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: text))
        let notImage = try grocery.run(["image", "set", id, text] + store)
        #expect(notImage.status == 2)
        #expect(notImage.stderr == "grocery: \(text) is not a PNG or JPEG image (checked by its first bytes)\n")
        // A sparse file: refused by its size before a byte is read.
        let huge = daemon.directory + "/huge.jpg"
        #expect(FileManager.default.createFile(atPath: huge, contents: Data([0xFF, 0xD8, 0xFF])))
        #expect(truncate(huge, off_t(1 << 30)) == 0)
        let tooLarge = try grocery.run(["image", "set", id, huge] + store)
        #expect(tooLarge.status == 2)
        #expect(tooLarge.stderr == "grocery: the image is 1073741824 bytes; images are limited to 10485760 bytes\n")
        let none = try grocery.run(["image", "get", id, daemon.directory + "/out.png"] + store)
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("grocery: item \(id) has no image"))
    }

    @Test func watchReconnectsWhenTheDaemonRestarts() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let milk = try #require(try grocery.run(["add", "milk", "--socket", daemon.socket]).stdout.split(separator: "\n").first)
        let watcher = try Watcher(["--socket", daemon.socket])
        #expect(try #require(watcher.next())["count"] as? Int == 1)

        #expect(daemon.stop() == 0)
        let reconnecting = try #require(watcher.next())
        #expect(reconnecting["kind"] as? String == "reconnecting")
        #expect((reconnecting["reason"] as? String)?.contains("ubiquityd") == true)
        // While the daemon is away: one item added, one removed, straight on disk.
        let eggs = GroceryItemID()
        try Data("eggs".utf8).write(to: URL(fileURLWithPath: daemon.documents() + "/" + eggs.fileName))
        try FileManager.default.removeItem(atPath: daemon.documents() + "/Item_" + milk)

        let restarted = try TestDaemon(arguments: ["--root", daemon.root, "--socket", daemon.socket], waitForSocket: false)
        defer { restarted.stop(); restarted.cleanUp() }
        let regathered = try #require(watcher.next(within: 30))
        #expect(regathered["kind"] as? String == "regathered")
        #expect(regathered["count"] as? Int == 1)
        let added = try #require(watcher.next()), removed = try #require(watcher.next())
        #expect(added["kind"] as? String == "added")
        #expect(added["id"] as? String == eggs.uuidString)
        #expect(removed["kind"] as? String == "removed")
        #expect(removed["name"] as? String == "milk")

        // And it is live again.
        #expect(try grocery.run(["rename", eggs.uuidString, "free-range eggs", "--socket", daemon.socket]).status == 0)
        #expect(watcher.next(kind: "renamed")?["name"] as? String == "free-range eggs")
        #expect(watcher.interrupt() == 0)
    }

    /// Package mode, the daemon restarted while the package has no items.json (as while Syncthing
    /// replaces it): the watch says why and goes on, and once the list is back it is told as the
    /// re-gathering it is, with what changed meanwhile.
    @Test func packageModeRegathersOnceTheListIsBack() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let store = ["--store", "package", "--socket", daemon.socket]
        let add = try grocery.run(["add", "milk"] + store)
        #expect(add.status == 0, "\(add.stderr)")
        let watcher = try Watcher(store)
        #expect(try #require(watcher.next())["count"] as? Int == 1)

        #expect(daemon.stop() == 0)
        #expect(watcher.next()?["kind"] as? String == "reconnecting")
        let package = daemon.documents() + "/grocery.gro"
        // The list with eggs added, kept aside while the daemon starts and the watch gathers.
        let items = package + "/items.json", aside = daemon.directory + "/items.json"
        var list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: items))) as? [String: Any])
        var entries = try #require(list["items"] as? [[String: Any]])
        var eggs = try #require(entries.first)
        let eggsID = GroceryItemID()
        eggs["id"] = eggsID.uuidString
        eggs["name"] = "eggs"
        entries.append(eggs)
        list["items"] = entries
        try JSONSerialization.data(withJSONObject: list).write(to: URL(fileURLWithPath: aside))
        try FileManager.default.removeItem(atPath: items)

        let restarted = try TestDaemon(arguments: ["--root", daemon.root, "--socket", daemon.socket], waitForSocket: false)
        defer { restarted.stop(); restarted.cleanUp() }
        var line = watcher.next(within: 30)
        while line?["kind"] as? String == "reconnecting" { line = watcher.next(within: 30) }
        let notice = try #require(line, "nothing after reconnecting\n\(restarted.log)")
        #expect(notice["kind"] as? String == "notice" && (notice["message"] as? String)?.contains("items.json is missing") == true, "\(notice)")
        #expect(rename(aside, items) == 0)
        let regathered = try #require(watcher.next(within: 30), "\(restarted.log)")
        #expect(regathered["kind"] as? String == "regathered" && regathered["count"] as? Int == 2, "\(regathered)")
        let added = try #require(watcher.next())
        #expect(added["kind"] as? String == "added" && added["id"] as? String == eggsID.uuidString, "\(added)")
        #expect(watcher.interrupt() == 0)
    }

    /// The daemon killed and restarted on the same state directory (its saved index): the watch
    /// resumes and says what changed while it was away — and only that — then is live again.
    @Test func watchSaysWhatChangedWhileTheDaemonWasDown() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let milk = try #require(try grocery.run(["add", "milk", "--socket", daemon.socket]).stdout.split(separator: "\n").first)
        let bread = try #require(try grocery.run(["add", "bread", "--socket", daemon.socket]).stdout.split(separator: "\n").first)
        let watcher = try Watcher(["--socket", daemon.socket])
        #expect(try #require(watcher.next())["count"] as? Int == 2)

        daemon.signal(SIGKILL)
        #expect(daemon.waitForExit() != nil)
        #expect(watcher.next()?["kind"] as? String == "reconnecting")
        let eggs = GroceryItemID()
        try Data("eggs".utf8).write(to: URL(fileURLWithPath: daemon.documents() + "/" + eggs.fileName))
        try FileManager.default.removeItem(atPath: daemon.documents() + "/Item_" + milk)

        let restarted = try TestDaemon(containers: [], arguments: ["--root", daemon.root, "--socket", daemon.socket],
                                       environment: ["STATE_DIRECTORY": daemon.directory + "/state"], waitForSocket: false)
        defer { restarted.stop(); restarted.cleanUp() }
        // The next line after the reconnecting ones is the resumption (not a re-gathering).
        var line = watcher.next(within: 30)
        while line?["kind"] as? String == "reconnecting" { line = watcher.next(within: 30) }
        let tally = try #require(line, "nothing after reconnecting\n\(restarted.log)")
        #expect(tally["kind"] as? String == "resumed", "\(tally)")
        #expect(tally["added"] as? Int == 1 && tally["changed"] as? Int == 0 && tally["removed"] as? Int == 1, "\(tally)\n\(restarted.log)")
        let added = try #require(watcher.next()), removed = try #require(watcher.next())
        #expect(added["kind"] as? String == "added" && added["id"] as? String == eggs.uuidString)
        #expect(removed["kind"] as? String == "removed" && removed["name"] as? String == "milk")

        #expect(try grocery.run(["rename", String(bread), "rye bread", "--socket", daemon.socket]).status == 0)
        #expect(watcher.next(kind: "renamed")?["name"] as? String == "rye bread")
        #expect(watcher.interrupt() == 0)
    }
}
