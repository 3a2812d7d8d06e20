import Foundation
import Glibc
import GroceryStore
import Testing
import UbiquityTesting

/// The `grocery` binary against the real daemon: one command per process, output and exit status
/// as a user sees them.
@Suite(.ownThreads) struct GroceryCommandTests {
    /// A socket that accepts but never answers (socket activation of a daemon that fails to
    /// start): list, status, add and watch give up after --timeout with a sentence, exit 3.
    @Test func aSilentSocketTimesOutWithAClearMessage() throws {
        let listener = try SilentListener(path: "/tmp/grocery-silent-\(getpid()).sock")
        defer { withExtendedLifetime(listener) {}; unlink(listener.path) }
        for command in [["list"], ["status"], ["add", "milk"], ["watch"]] {
            let r = try grocery.run(command + ["--socket", listener.path, "--timeout", "1"], deadline: 20)
            #expect(r.status == 3, "\(command): \(r.stderr)")
            #expect(r.stderr == "grocery: ubiquityd at \(listener.path) accepted the connection but did not answer within 1 s; it may be failing to start or stuck: see `systemctl status ubiquityd` (or `--user`) and its journal\n",
                    "\(command)")
        }
    }

    @Test func statusWithoutADaemonSaysHowToStartItAndExits3() throws {
        let path = "/tmp/grocery-none-\(getpid()).sock"
        for command in [["status"], ["list"], ["add", "milk"], ["watch"]] {
            let r = try grocery.run(command + ["--socket", path])
            #expect(r.status == 3, "\(command)")
            #expect(r.stderr == "grocery: ubiquityd is not running (no socket at \(path)); start it with `make run` or `systemctl --user start ubiquityd`\n")
            #expect(r.stdout.isEmpty)
        }
    }

    @Test func statusNamesTheContainerItsPathAndTheItemCount() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        try daemon.place(GroceryItemID().fileName, contents: "milk")
        try daemon.place("notes.txt", contents: "not an item")
        let r = try grocery.run(["status", "--socket", daemon.socket])
        #expect(r.status == 0)
        let container = daemon.root + "/com.example.grocery"
        #expect(r.stdout.hasPrefix("daemon     ubiquityd "))
        #expect(r.stdout.hasSuffix("""
            container  com.example.grocery
            path       \(container)
            store      files (Documents/Item_<UUID>)
            items      1
            sync       no sync engine shares the container: this machine only

            """))
        let json = try grocery.run(["status", "--json", "--socket", daemon.socket])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["items"] as? Int == 1)
        #expect(object["path"] as? String == container)
        #expect(object["documents"] as? String == container + "/Documents")
        #expect(object["socket"] as? String == daemon.socket)
        #expect(object["sync"] as? String == "none")
        #expect((object["devices"] as? [Any])?.isEmpty == true)
        // Without a sync engine the list marks nothing: every item would be "on no other device".
        let list = try grocery.run(["list", "--json", "--socket", daemon.socket])
        #expect(list.status == 0 && list.stdout.contains("\"milk\"") && !list.stdout.contains("\"sync\""), "\(list.stdout)")
    }

    /// `--socket`, `--json`, `--container` and `--store` also work before the subcommand.
    @Test func globalOptionsWorkBeforeTheSubcommand() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let id = GroceryItemID()
        try daemon.place(id.fileName, contents: "milk")
        let before = try grocery.run(["--socket", daemon.socket, "--json", "--store", "files", "list"])
        let after = try grocery.run(["list", "--socket", daemon.socket, "--json", "--store", "files"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == after.stdout)
        #expect(before.stdout.contains(id.uuidString))
    }

    @Test func addWritesOneFileNamedByTheUUIDHoldingTheNameExactly() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let names = ["milk", "two\nlines", "🍎 apples 🍏", "حليب", "", "e\u{301}clair"]
        let r = try grocery.run(["add", "--socket", daemon.socket] + names)
        #expect(r.status == 0, "\(r.stderr)")
        let ids = r.stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == names.count)
        for (id, name) in zip(ids, names) {
            #expect(id == id.uppercased() && UUID(uuidString: id) != nil)
            let stored = try Data(contentsOf: URL(fileURLWithPath: daemon.documents() + "/Item_" + id))
            #expect(stored == Data(name.utf8))
        }
        // Only the items: no temporary file is left behind.
        let files = try FileManager.default.contentsOfDirectory(atPath: daemon.documents())
        #expect(Set(files) == Set(ids.map { "Item_" + $0 }))
    }

    @Test func listSortsShowsUnnamedItemsAndKeepsNamesIntactInJSON() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let names = ["milk", "two\nlines", "🍎 apples", "حليب", "", "Bread"]
        #expect(try grocery.run(["add", "--socket", daemon.socket] + names).status == 0)
        // Not items: ignored silently.
        try daemon.place("notes.txt", contents: "buy more")
        try daemon.place("Item_milk", contents: "not a UUID")
        try daemon.place("Item_" + UUID().uuidString.lowercased(), contents: "not canonical")
        try FileManager.default.createDirectory(atPath: daemon.documents() + "/" + GroceryItemID().fileName,
                                                withIntermediateDirectories: false)

        let json = try grocery.run(["list", "--json", "--socket", daemon.socket])
        #expect(json.status == 0, "\(json.stderr)")
        let objects = json.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // By name, case-insensitively (by Unicode scalar: Arabic after Latin, emoji last).
        #expect(objects.map { $0["name"] as? String } == ["Bread", "milk", "two\nlines", "", "حليب", "🍎 apples"].map(Optional.some))
        #expect(objects[3]["displayName"] as? String == "Unnamed item")
        for object in objects {
            let id = try #require(object["id"] as? String), short = try #require(object["shortID"] as? String)
            #expect(id.hasPrefix(short) && short.count >= GroceryLimits.minimumShortIDLength)
            #expect(object["truncated"] as? Bool == false)
            #expect(object.keys.sorted() == ["created", "displayName", "id", "image", "inConflict", "modified", "name", "shortID", "truncated"])
        }

        let table = try grocery.run(["list", "--socket", daemon.socket])
        let rows = table.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("ID  ") == true && rows.first?.hasSuffix("  NAME") == true)
        #expect(rows.dropFirst().map { String($0.split(separator: " ", maxSplits: 1).last!).trimmingCharacters(in: .whitespaces) }
                == ["Bread", "milk", "two↵lines", "Unnamed item", "حليب", "🍎 apples"])
    }

    @Test func showAndSortByCreation() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        // Added one by one, so their birth times are in this order.
        for name in ["zucchini", "apples", "milk"] {
            #expect(try grocery.run(["add", name, "--socket", daemon.socket]).status == 0)
        }
        let byCreation = try grocery.run(["list", "--sort", "created", "--json", "--socket", daemon.socket])
        let names = byCreation.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["name"] as? String
        }
        #expect(names == ["zucchini", "apples", "milk"])
        let bad = try grocery.run(["list", "--sort", "price", "--socket", daemon.socket])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("price"))

        let id = try #require(try grocery.run(["add", "oat milk", "--socket", daemon.socket]).stdout.split(separator: "\n").first)
        let show = try grocery.run(["show", String(id.prefix(8)), "--socket", daemon.socket])
        #expect(show.status == 0)
        let rows = show.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first == "id        \(id)")
        #expect(rows.contains("name      oat milk"))
        #expect(rows.last == "file      \(daemon.documents())/Item_\(id)")
    }

    @Test func aNameAboveTheLimitIsRefusedWithAClearError() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let megabyte = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        let piped = try grocery.run(["add", "--stdin", "--socket", daemon.socket], stdin: megabyte)
        #expect(piped.status == 2)
        #expect(piped.stderr == "grocery: the name on standard input is longer than 4096 bytes; names are limited to 4096 bytes of UTF-8\n")
        let argument = try grocery.run(["add", "ok", String(repeating: "é", count: 2049), "--socket", daemon.socket])
        #expect(argument.status == 2)
        #expect(argument.stderr == "grocery: the name is 4098 bytes long; names are limited to 4096 bytes of UTF-8\n")
        // Nothing was written, not even the valid name before it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()).isEmpty)
        let exact = try grocery.run(["add", "--stdin", "--socket", daemon.socket], stdin: Data(repeating: 0x62, count: 4096))
        #expect(exact.status == 0)
    }

    @Test func aFileLongerThanTheLimitIsShownTruncated() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let id = GroceryItemID()
        try daemon.place(id.fileName, contents: String(repeating: "x", count: 5000))
        let r = try grocery.run(["show", "--json", String(id.uuidString.prefix(6)), "--socket", daemon.socket])
        #expect(r.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["truncated"] as? Bool == true)
        #expect((object["name"] as? String)?.utf8.count == GroceryLimits.maxNameBytes)
        #expect((object["displayName"] as? String)?.hasSuffix("x…") == true)
    }

    @Test func unknownAmbiguousAndInvalidIDsAreClearErrors() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let a = "3F2A9C1E-0000-4000-8000-000000000001", b = "3F2A9C1E-0000-4000-8000-000000000002"
        try daemon.place("Item_" + a, contents: "milk")
        try daemon.place("Item_" + b, contents: "eggs")
        let list = try grocery.run(["list", "--socket", daemon.socket])
        #expect(list.stdout == """
            ID                                    NAME
            \(b)  eggs
            \(a)  milk

            """)
        let ambiguous = try grocery.run(["show", "3f2a", "--socket", daemon.socket])
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr == "grocery: id '3f2a' is ambiguous: 2 items start with it (\(a), \(b)); type more characters\n")
        let unknown = try grocery.run(["rename", "FFFF", "x", "--socket", daemon.socket])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "grocery: no item with id 'FFFF' (run `grocery list` to see the ids)\n")
        let invalid = try grocery.run(["delete", "milk", "--socket", daemon.socket])
        #expect(invalid.status == 2)
        #expect(invalid.stderr.hasPrefix("grocery: 'milk' is not an item id"))
        // delete resolves every id first: one bad id deletes nothing.
        let partly = try grocery.run(["delete", a, "FFFF", "--socket", daemon.socket])
        #expect(partly.status == 2)
        #expect(FileManager.default.fileExists(atPath: daemon.documents() + "/Item_" + a))
        #expect(try grocery.run(["rename", a.lowercased(), "oat milk", "--socket", daemon.socket]).status == 0)
        #expect(try String(contentsOfFile: daemon.documents() + "/Item_" + a, encoding: .utf8) == "oat milk")
        #expect(try grocery.run(["delete", "Item_" + a, String(b.prefix(36)), "--socket", daemon.socket]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()).isEmpty)
    }

    @Test func imagesNeedThePackage() throws {
        let r = try grocery.run(["image", "set", "3F2A", "milk.png", "--socket", "/tmp/unused.sock"])
        #expect(r.status == 2)
        #expect(r.stderr == "grocery: images are kept only in package mode: add --store package (see docs/grocery.md)\n")
    }
}
