import Foundation
import Glibc
import GroceryStore
import Testing
import UbiquityStore
import UbiquityTesting

/// `grocery --store relational`: the list as rows of the container's relational store, with tags,
/// against the real daemon; another device's segment delivered as a sync engine does.
@Suite(.ownThreads) struct StoreModeTests {
    static func run(_ arguments: [String], _ daemon: TestDaemon) throws -> CLIResult {
        try grocery.run(arguments + ["--store", "relational", "--socket", daemon.socket])
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test func addTagListUntagAndTheDefaultTags() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        // The three tags exist from the first use on.
        let first = try Self.run(["tags"], daemon)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Self.lines(first.stdout) == ["ITEMS  TAG", "0      green grocer", "0      grocery store", "0      mall"])

        let add = try Self.run(["add", "carrots", "leeks", "--tag", "mall", "--tag", "Green  Grocer"], daemon)
        #expect(add.status == 0, "\(add.stderr)")
        let ids = Self.lines(add.stdout)
        #expect(ids.count == 2 && ids.allSatisfy { GroceryItemID(uuidString: $0) != nil })
        #expect(try Self.run(["add", "bread", "--tag", "bakery"], daemon).status == 0)

        let list = try Self.run(["list"], daemon)
        #expect(list.status == 0, "\(list.stderr)")
        let rows = Self.lines(list.stdout)
        #expect(rows.first?.hasPrefix("ID") == true && rows.first?.contains("TAGS") == true)
        #expect(rows.contains { $0.hasSuffix("green grocer, mall  carrots") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("bakery              bread") } || rows.contains { $0.contains("bakery") && $0.hasSuffix("bread") }, "\(rows)")

        let mall = try Self.run(["list", "--tag", "MALL", "--json"], daemon)
        #expect(mall.status == 0, "\(mall.stderr)")
        let names = Self.lines(mall.stdout).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["name"] as? String
        }
        #expect(names == ["carrots", "leeks"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Self.lines(mall.stdout)[0].utf8)) as? [String: Any])
        #expect(json["tags"] as? [String] == ["green grocer", "mall"])

        let carrots = String(ids[0].prefix(8))
        #expect(try Self.run(["untag", carrots, "mall"], daemon).status == 0)
        #expect(try Self.run(["tag", carrots, "grocery store"], daemon).status == 0)
        let shown = try Self.run(["show", carrots], daemon)
        #expect(shown.stdout.contains("green grocer, grocery store"), "\(shown.stdout)")
        #expect(shown.stdout.contains("ubiquity-store://com.example.grocery/grocery/items/"))
        let counts = Self.lines(try Self.run(["tags"], daemon).stdout)
        #expect(counts == ["ITEMS  TAG", "1      bakery", "2      green grocer", "1      grocery store", "1      mall"], "\(counts)")

        // Bad input: exit 2, a sentence naming what was wrong, nothing changed.
        let unknown = try Self.run(["untag", carrots, "market"], daemon)
        #expect(unknown.status == 2 && unknown.stderr.contains("no tag 'market'"), "\(unknown.stderr)")
        let noTag = try Self.run(["list", "--tag", "market"], daemon)
        #expect(noTag.status == 2)
        let empty = try Self.run(["tag", carrots, "   "], daemon)
        #expect(empty.status == 2 && empty.stderr.contains("not empty"))
        let conflicts = try Self.run(["conflicts", carrots], daemon)
        #expect(conflicts.status == 2 && conflicts.stderr.contains("no conflict versions"))

        #expect(try Self.run(["rename", carrots, "purple carrots"], daemon).status == 0)
        #expect(try Self.run(["delete", String(ids[1].prefix(8))], daemon).status == 0)
        let after = try Self.run(["list", "--json"], daemon)
        let left = Self.lines(after.stdout).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["name"] as? String
        }
        #expect(left == ["bread", "purple carrots"])
        let status = try Self.run(["status", "--json"], daemon)
        #expect(status.stdout.contains(#""store":"relational""#) && status.stdout.contains(#""items":2"#), "\(status.stdout)")
    }

    @Test func tagsOutsideStoreModeAreRefusedAndFileModeIsUntouched() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let tagged = try grocery.run(["add", "milk", "--tag", "mall", "--socket", daemon.socket])
        #expect(tagged.status == 2 && tagged.stderr.contains("--store relational"), "\(tagged.stderr)")
        #expect(try grocery.run(["tags", "--socket", daemon.socket]).status == 2)
        // Nothing was written: no item file, and the store mode list is a separate one.
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.documents()).filter { $0.hasPrefix("Item_") }.isEmpty)
        #expect(try grocery.run(["add", "milk", "--socket", daemon.socket]).status == 0)
        #expect(Self.lines(try Self.run(["list", "--json"], daemon).stdout).isEmpty)
        #expect(Self.lines(try grocery.run(["list", "--socket", daemon.socket]).stdout).count == 2)
    }

    @Test func watchShowsImportsAsTheyLand() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let watcher = try Watcher(["--store", "relational", "--socket", daemon.socket])
        let gathered = try #require(watcher.next())
        #expect(gathered["kind"] as? String == "gathered" && gathered["count"] as? Int == 0)

        // Another process on this device.
        let add = try Self.run(["add", "milk", "--tag", "mall"], daemon)
        #expect(add.status == 0, "\(add.stderr)")
        let own = try #require(watcher.next(kind: "imported"))
        #expect(own["devices"] as? [String] == ["this device"] && own["added"] as? Int == 1)
        let added = try #require(watcher.next())
        #expect(added["kind"] as? String == "added" && added["name"] as? String == "milk")

        // The laptop's segment, delivered as a sync engine does: two items, one tagged mall.
        var laptop = StoreReplica(schema: GroceryTable.schema, device: DeviceID("laptop")!)
        let mall = try #require(RowID(try GroceryTable.tagID("mall")))
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let made = try #require(try laptop.commit([
            .insert(table: "items", id: RowID(high: 1, low: 1), values: ["name": .string("carrots")]),
            .insert(table: "items", id: RowID(high: 1, low: 2), values: ["name": .string("leeks")]),
            .insert(table: "tags", id: mall, values: ["name": .string("mall")]),
            .relate(relationship: "tags", from: RowID(high: 1, low: 1), to: mall),
        ], wall: wall))
        let folder = "\(daemon.root)/com.example.grocery/.ubiquity-stores/grocery/logs/laptop"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(made.segment.encoded()).write(to: URL(fileURLWithPath: folder + "/.1.tmp"))
        #expect(rename(folder + "/.1.tmp", folder + "/1") == 0)
        let imported = try #require(watcher.next(kind: "imported"))
        #expect(imported["devices"] as? [String] == ["laptop"])
        #expect(imported["added"] as? Int == 2 && imported["changed"] as? Int == 0)
        let first = try #require(watcher.next()), second = try #require(watcher.next())
        #expect([first["name"] as? String, second["name"] as? String] == ["carrots", "leeks"])

        // Tagging from another process: the item's tags changed.
        let carrots = GroceryItemID(rowID: RowID(high: 1, low: 1).description)!.uuidString
        #expect(try Self.run(["tag", carrots, "green grocer"], daemon).status == 0)
        _ = try #require(watcher.next(kind: "imported"))
        let retagged = try #require(watcher.next())
        #expect(retagged["kind"] as? String == "retagged" && retagged["tags"] as? [String] == ["green grocer", "mall"])
        #expect(watcher.interrupt() == 0)
    }

    /// A segment of the laptop inserting `names` as items `ids`, delivered as a sync engine does.
    static func deliverFromLaptop(_ names: [String], ids: [UInt64], sequence: Int, replica: inout StoreReplica, root: String) throws {
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let operations = zip(names, ids).map { name, id in
            StoreOperation.insert(table: "items", id: RowID(high: 2, low: id), values: ["name": .string(name)])
        }
        let made = try #require(try replica.commit(operations, wall: wall))
        let folder = "\(root)/com.example.grocery/.ubiquity-stores/grocery/logs/laptop"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(made.segment.encoded()).write(to: URL(fileURLWithPath: "\(folder)/.\(sequence).tmp"))
        #expect(rename("\(folder)/.\(sequence).tmp", "\(folder)/\(sequence)") == 0)
    }

    @Test func watchReconnectsAndTellsWhatWasImportedMeanwhile() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        #expect(try Self.run(["add", "milk"], daemon).status == 0)
        let watcher = try Watcher(["--store", "relational", "--socket", daemon.socket])
        #expect(try #require(watcher.next())["count"] as? Int == 1)

        #expect(daemon.stop() == 0)
        #expect(watcher.next()?["kind"] as? String == "reconnecting")
        // While the daemon is away the sync engine delivers the laptop's segment.
        var laptop = StoreReplica(schema: GroceryTable.schema, device: DeviceID("laptop")!)
        try Self.deliverFromLaptop(["eggs"], ids: [1], sequence: 1, replica: &laptop, root: daemon.root)

        let restarted = try TestDaemon(containers: [], arguments: ["--root", daemon.root, "--socket", daemon.socket],
                                       environment: ["STATE_DIRECTORY": daemon.directory + "/state"], waitForSocket: false)
        defer { restarted.stop(); restarted.cleanUp() }
        var line = watcher.next(within: 30)
        while line?["kind"] as? String == "reconnecting" { line = watcher.next(within: 30) }
        let regathered = try #require(line, "nothing after reconnecting\n\(restarted.log)")
        #expect(regathered["kind"] as? String == "regathered" && regathered["count"] as? Int == 2, "\(regathered)\n\(restarted.log)")
        let added = try #require(watcher.next())
        #expect(added["kind"] as? String == "added" && added["name"] as? String == "eggs")

        // And it is live again: the laptop's next segment lands.
        try Self.deliverFromLaptop(["bread"], ids: [2], sequence: 2, replica: &laptop, root: daemon.root)
        let imported = try #require(watcher.next(kind: "imported"), "\(restarted.log)")
        #expect(imported["devices"] as? [String] == ["laptop"] && imported["added"] as? Int == 1)
        #expect(watcher.next()?["name"] as? String == "bread")
        #expect(watcher.interrupt() == 0)
    }

    @Test func pipedWatchSaysWhereAnImportCameFrom() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let watcher = try Watcher(["--store", "relational", "--socket", daemon.socket], json: false)
        #expect(watcher.lines.next(within: 15) == "(no items)")
        #expect(try Self.run(["add", "milk", "bread"], daemon).status == 0)
        let header = try #require(watcher.lines.next(within: 15))
        #expect(header.range(of: #"^\d\d:\d\d:\d\d  from this device: \+2 ~0 −0$"#, options: .regularExpression) != nil, "\(header)")
        #expect(watcher.interrupt() == 0)
    }
}
