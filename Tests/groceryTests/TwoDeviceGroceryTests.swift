import Foundation
import GroceryStore
import Testing
import UbiquityTesting

/// Grocery on two devices replicating one container through real Syncthing (two instances in a
/// private network namespace) and two real daemons. Needs root (unshare).
@Suite(.ownThreads) struct TwoDeviceGroceryTests {
    static func run(_ arguments: [String], on device: TwoDevices.Device) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try grocery.run(arguments + ["--socket", device.socket])
        return (r.status, r.stdout, r.stderr)
    }

    /// `grocery list --json` of a device, by id.
    static func items(on device: TwoDevices.Device) throws -> [String: [String: Any]] {
        let r = try run(["list", "--json"], on: device)
        var items: [String: [String: Any]] = [:]
        for line in r.stdout.split(separator: "\n") {
            if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let id = object["id"] as? String {
                items[id] = object
            }
        }
        return items
    }

    /// Both Syncthing instances stop talking, `body` changes each side, then they meet again.
    static func apart(_ devices: TwoDevices, _ body: () throws -> Void) throws {
        try devices.a.syncthing.call("POST", "/rest/system/pause?device=\(devices.b.deviceID)")
        try body()
        for device in [devices.a, devices.b] { try device.syncthing.call("POST", "/rest/db/scan?folder=\(TwoDevices.containerID)") }
        try devices.a.syncthing.call("POST", "/rest/system/resume?device=\(devices.b.deviceID)")
    }

    /// The next `kv.changed` naming `key` on a subscribed raw client, within a deadline.
    static func keyChanged(_ client: RawClient, _ key: String, within seconds: Double = 60) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == "kv.changed", message["keys"]?.arrayValue?.contains(.string(key)) == true { return }
        }
        throw TestDaemonError("no kv.changed for \(key) within \(seconds) s")
    }

    /// The sort order is a key-value setting: chosen on A, B's list follows; chosen on both while
    /// apart, the later choice wins on both.
    @Test func theSortOrderFollowsTheUserToTheOtherDevice() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        var subscribers: [RawClient] = []
        for device in [devices.a, devices.b] {
            let client = try RawClient(socket: device.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"kv.subscribe"}"#)
            subscribers.append(client)
        }
        for name in ["zucchini", "apples"] { #expect(try Self.run(["add", name], on: devices.a).status == 0) }
        #expect(try Self.run(["sort", "created"], on: devices.a).status == 0)
        try Self.keyChanged(subscribers[1], GroceryList.sortOrderKey)
        try devices.waitUntilInSync()
        #expect(try Self.run(["sort"], on: devices.b).stdout == "created\n")
        // B's list is in B's creation order ("created" is each file's birth on B, where Syncthing
        // made them), whatever the names say: the stored choice, not the default name order.
        func names(_ extra: [String]) throws -> [String] {
            try Self.run(["list", "--json"] + extra, on: devices.b).stdout.split(separator: "\n").compactMap {
                (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["name"] as? String
            }
        }
        #expect(try names([]) == (try names(["--sort", "created"])))
        #expect(Set(try names([])) == ["zucchini", "apples"])

        var statuses: [Int32] = []
        try Self.apart(devices) {
            statuses.append(try Self.run(["sort", "created"], on: devices.a).status)
            statuses.append(try Self.run(["sort", "name"], on: devices.b).status)
        }
        #expect(statuses == [0, 0])
        try Self.keyChanged(subscribers[0], GroceryList.sortOrderKey)
        try devices.waitUntilInSync()
        for device in [devices.a, devices.b] {
            #expect(try Self.run(["sort"], on: device).stdout == "name\n", "on \(device.name)")
            let files = try FileManager.default.contentsOfDirectory(atPath: device.container + "/.ubiquity-kv")
            #expect(!files.contains { $0.contains("sync-conflict") }, "on \(device.name): \(files)")
        }
    }

    /// Syncthing replaces a file by removing it and renaming its temporary file into place; the
    /// daemon reads that as one new version of the item, so B shows what the user did on A: a
    /// rename (even with `--batching 0`).
    @Test func addRenameAndDeleteOnOneDeviceReachTheOthersWatch() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let watcher = try Watcher(["--socket", devices.b.socket])
        #expect(watcher.next(kind: "gathered")?["count"] as? Int == 0)

        let added = try Self.run(["add", "milk"], on: devices.a)
        #expect(added.status == 0, "\(added.stderr)")
        let id = added.stdout.trimmingCharacters(in: .newlines)
        let arrived = try #require(watcher.next(kind: "added", within: 60))
        #expect(arrived["id"] as? String == id && arrived["name"] as? String == "milk")

        #expect(try Self.run(["rename", String(id.prefix(8)), "oat milk"], on: devices.a).status == 0)
        let renamed = try #require(watcher.next(kind: "renamed", within: 60))
        #expect(renamed["oldName"] as? String == "milk" && renamed["name"] as? String == "oat milk")

        #expect(try Self.run(["delete", String(id.prefix(8))], on: devices.a).status == 0)
        let removed = try #require(watcher.next(kind: "removed", within: 60))
        #expect(removed["id"] as? String == id)
        #expect(watcher.interrupt() == 0)
    }

    /// Both devices rename the same item while apart: on both it becomes one item in conflict
    /// with two versions; `resolve` on A ends the conflict on B too, with the chosen name on both.
    @Test func renamesWhileApartBecomeOneConflictThatResolveOnOneDeviceEndsOnBoth() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let id = try Self.run(["add", "milk"], on: devices.a).stdout.trimmingCharacters(in: .newlines)
        let short = String(id.prefix(8))
        try devices.waitUntilInSync()
        let watchers = try [devices.a, devices.b].map { try Watcher(["--socket", $0.socket]) }
        for watcher in watchers { #expect(watcher.next(kind: "gathered")?["count"] as? Int == 1) }

        try Self.apart(devices) {
            let onA = try Self.run(["rename", short, "oat milk"], on: devices.a)
            let onB = try Self.run(["rename", short, "whole milk"], on: devices.b)
            #expect(onA.status == 0 && onB.status == 0, "\(onA.stderr)\(onB.stderr)")
        }
        for (watcher, name) in zip(watchers, ["a", "b"]) {
            let (conflicted, seen) = watcher.lines(until: "conflicted", id: id)
            #expect(conflicted != nil, "no conflict reported on \(name): \(seen)")
        }
        try devices.waitUntilInSync()
        for device in [devices.a, devices.b] {
            #expect(try Self.items(on: device)[id]?["inConflict"] as? Bool == true, "on \(device.name)")
            let versions = try Self.run(["conflicts", short, "--json"], on: device).stdout.split(separator: "\n").compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(Set(versions.compactMap { $0["name"] as? String }) == ["oat milk", "whole milk"], "on \(device.name): \(versions)")
            #expect(versions.count == 2)
        }

        let resolved = try Self.run(["resolve", short, "--name", "oat milk"], on: devices.a)
        #expect(resolved.status == 0, "\(resolved.stderr)")
        for (watcher, name) in zip(watchers, ["a", "b"]) {
            let (resolvedHere, seen) = watcher.lines(until: "conflictResolved", id: id)
            #expect(resolvedHere != nil, "the conflict did not end on \(name): \(seen)")
        }
        try devices.waitUntilInSync()
        for device in [devices.a, devices.b] {
            let item = try Self.items(on: device)[id]
            #expect(item?["name"] as? String == "oat milk", "on \(device.name): \(String(describing: item))")
            #expect(item?["inConflict"] as? Bool == false, "on \(device.name)")
            let names = try FileManager.default.contentsOfDirectory(atPath: device.documents)
            #expect(names == ["Item_" + id], "on \(device.name): \(names)")
        }
        for watcher in watchers { #expect(watcher.interrupt() == 0) }
    }

    /// One device edits an item while the other deletes it: the edit wins on both devices
    /// (Syncthing restores the edited file), and no conflict is left to resolve.
    @Test func anEditWhileTheOtherDeviceDeletesKeepsTheEditOnBoth() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let id = try Self.run(["add", "bread"], on: devices.a).stdout.trimmingCharacters(in: .newlines)
        let short = String(id.prefix(8))
        try devices.waitUntilInSync()
        let watcher = try Watcher(["--socket", devices.b.socket])
        #expect(watcher.next(kind: "gathered")?["count"] as? Int == 1)

        try Self.apart(devices) {
            let edit = try Self.run(["rename", short, "rye bread"], on: devices.a)
            let delete = try Self.run(["delete", short], on: devices.b)
            #expect(edit.status == 0 && delete.status == 0, "\(edit.stderr)\(delete.stderr)")
        }
        #expect(watcher.next(kind: "removed", within: 30)?["id"] as? String == id, "B's own delete")
        let back = watcher.next(kind: "added", within: 60)
        #expect(back?["id"] as? String == id && back?["name"] as? String == "rye bread", "the edit came back to B: \(String(describing: back))")
        try devices.waitUntilInSync()
        for device in [devices.a, devices.b] {
            let item = try Self.items(on: device)[id]
            #expect(item?["name"] as? String == "rye bread", "on \(device.name)")
            #expect(item?["inConflict"] as? Bool == false, "on \(device.name)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: device.documents) == ["Item_" + id], "on \(device.name)")
        }
        #expect(watcher.interrupt() == 0)
    }

    /// Store mode over real Syncthing: each device writes only its own log, so nothing conflicts.
    /// An item added on A reaches B's watch as an import from A; items added while apart, each
    /// tagged with a new tag spelled differently on each side, make one list and one tag on both.
    @Test func storeModeMergesBothDevicesIntoOneListAndOneTag() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        func store(_ arguments: [String], on device: TwoDevices.Device) throws -> (status: Int32, stdout: String, stderr: String) {
            try Self.run(arguments + ["--store", "relational"], on: device)
        }
        func names(on device: TwoDevices.Device) throws -> Set<String> {
            Set(try store(["list", "--json"], on: device).stdout.split(separator: "\n").compactMap {
                (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["name"] as? String
            })
        }
        /// Skips lines of `watcher` until an item named `name` is added (false after 60 s without).
        func sawAdded(_ name: String, on watcher: Watcher) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                guard let line = watcher.next(kind: "added", within: deadline.timeIntervalSinceNow) else { return false }
                if line["name"] as? String == name { return true }
            }
            return false
        }
        for device in [devices.a, devices.b] { #expect(try store(["tags"], on: device).status == 0, "on \(device.name)") }
        try devices.waitUntilInSync()
        let watchers = try [devices.a, devices.b].map { try Watcher(["--store", "relational", "--socket", $0.socket]) }
        for watcher in watchers { #expect(watcher.next(kind: "gathered")?["count"] as? Int == 0) }

        let added = try store(["add", "milk", "--tag", "mall"], on: devices.a)
        #expect(added.status == 0, "\(added.stderr)")
        let imported = try #require(watchers[1].next(kind: "imported", within: 60), "\(devices.logs)")
        let from = imported["devices"] as? [String] ?? []
        #expect(from.count == 1 && from != [GroceryLiveList.thisDevice] && imported["added"] as? Int == 1, "\(imported)")
        let arrived = try #require(watchers[1].next())
        #expect(arrived["kind"] as? String == "added" && arrived["name"] as? String == "milk")

        try Self.apart(devices) {
            let onA = try store(["add", "carrots", "--tag", "farm shop"], on: devices.a)
            let onB = try store(["add", "bread", "--tag", "Farm  Shop"], on: devices.b)
            #expect(onA.status == 0 && onB.status == 0, "\(onA.stderr)\(onB.stderr)")
        }
        // Each device's watch sees the other's item arrive: its import is done.
        #expect(sawAdded("bread", on: watchers[0]), "A imports B's bread")
        #expect(sawAdded("carrots", on: watchers[1]), "B imports A's carrots")
        for device in [devices.a, devices.b] {
            #expect(try names(on: device) == ["milk", "carrots", "bread"], "on \(device.name)")
            let tags = try store(["tags", "--json"], on: device).stdout.split(separator: "\n").compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let farm = tags.filter { ($0["name"] as? String)?.lowercased().contains("farm") == true }
            #expect(farm.count == 1 && farm.first?["items"] as? Int == 2, "on \(device.name): \(tags)")
            #expect(tags.count == 4, "mall, grocery store, green grocer and the farm shop, once each: \(tags)")
            // Each device wrote only its own log: no sync conflicts, no temporary files carried over.
            let files = FileManager.default.enumerator(atPath: device.container + "/.ubiquity-stores")?.allObjects as? [String] ?? []
            #expect(!files.isEmpty && !files.contains { $0.contains("sync-conflict") || $0.hasSuffix(".writing") }, "on \(device.name): \(files)")
        }
        for watcher in watchers { #expect(watcher.interrupt() == 0) }
    }
}
