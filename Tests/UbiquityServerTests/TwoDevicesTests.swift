import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting

/// Two devices replicating one container through real Syncthing (two instances in a private
/// network namespace) and two real daemons: a change on one device reaches the other device's
/// live query. Needs root (unshare).
@Suite(.ownThreads) struct TwoDevicesTests {
    /// Starts a live `name LIKE 'Item_*'` query and returns the client and the gathered names.
    static func liveQuery(_ device: TwoDevices.Device) throws -> (RawClient, [String]) {
        let client = try RawClient(socket: device.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#)
        let finished = try next(client, "query.gatheringFinished")
        return (client, names(finished["results"]))
    }

    static func names(_ items: JSONValue?) -> [String] {
        items?.arrayValue?.compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }.sorted() ?? []
    }

    static func next(_ client: RawClient, _ event: String, within seconds: Double = 30) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == event { return message }
        }
        throw TestDaemonError("no \(event) within \(seconds) s")
    }

    @Test func anItemMadeOnOneDeviceReachesTheOtherDevicesLiveQuery() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let (onB, gatheredOnB) = try Self.liveQuery(devices.b)
        let (onA, gatheredOnA) = try Self.liveQuery(devices.a)
        #expect(gatheredOnA.isEmpty && gatheredOnB.isEmpty)

        try devices.a.place("Item_milk", contents: "milk")
        let arrived = try Self.next(onB, "query.update")
        #expect(Self.names(arrived["added"]) == ["Item_milk"], "\(arrived)")
        #expect(try String(contentsOfFile: devices.b.documents + "/Item_milk", encoding: .utf8) == "milk")

        try devices.b.place("Item_bread", contents: "bread")
        var added: [String] = []
        while !added.contains("Item_bread") {
            added += Self.names(try Self.next(onA, "query.update")["added"])
        }
        #expect(added.contains("Item_bread"))
        try devices.waitUntilInSync()
    }

    /// Syncthing's own files (`.stfolder`, `.stignore`, the temporary file a received file is
    /// written to) never show, not even to a query that asks for hidden files.
    @Test func syncthingsOwnFilesAreNeverItems() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let everything = #"{"id":1,"op":"query.start","predicate":"kMDItemFSInvisible == YES OR kMDItemFSInvisible == NO","batchingInterval":0}"#
        let client = try RawClient(socket: devices.b.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        _ = try client.request(everything)
        var seen = [try Self.next(client, "query.gatheringFinished")]
        // Big enough to be received in pieces into a temporary file first.
        try devices.a.place("Item_big", contents: String(repeating: "x", count: 8 << 20))
        var names: Set<String> = []
        while !names.contains("Item_big") {
            let update = try Self.next(client, "query.update")
            seen.append(update)
            names.formUnion((update["added"]?.arrayValue ?? []).compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue })
        }
        try devices.waitUntilInSync()
        #expect(FileManager.default.fileExists(atPath: devices.b.container + "/.stfolder"))
        let all = "\(seen)"
        for name in [".stfolder", ".stignore", ".syncthing.", "~syncthing~"] {
            #expect(!all.contains(name), "\(name) reached a client: \(all.prefix(2000))")
        }
    }

    /// Both devices change the same item while they cannot reach each other: Syncthing keeps one
    /// as the item and the other as a conflict copy, and on both devices the item is in conflict.
    @Test func aConflictMadeOnTwoDevicesShowsOnBoth() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        try devices.a.place("Item_list", contents: "milk")
        try devices.waitUntilInSync()
        var clients: [RawClient] = []
        for device in [devices.a, devices.b] {
            let client = try RawClient(socket: device.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"hasUnresolvedConflicts == YES","batchingInterval":0}"#)
            #expect(Self.names(try Self.next(client, "query.gatheringFinished")["results"]).isEmpty)
            clients.append(client)
        }

        try devices.a.syncthing.call("POST", "/rest/system/pause?device=\(devices.b.deviceID)")
        try devices.a.place("Item_list", contents: "milk and eggs")
        try devices.b.place("Item_list", contents: "milk and bread")
        for device in [devices.a, devices.b] { try device.syncthing.call("POST", "/rest/db/scan?folder=\(TwoDevices.containerID)") }
        try devices.a.syncthing.call("POST", "/rest/system/resume?device=\(devices.b.deviceID)")

        for (client, device) in zip(clients, [devices.a, devices.b]) {
            let update = try Self.next(client, "query.update", within: 60)
            #expect(Self.names(update["added"]) == ["Item_list"], "on \(device.name): \(update)")
        }
        try devices.waitUntilInSync()
        for device in [devices.a, devices.b] {
            let names = try FileManager.default.contentsOfDirectory(atPath: device.documents)
            #expect(names.contains { $0.hasPrefix("Item_list.sync-conflict-") }, "on \(device.name): \(names)")
        }
    }
}

/// What Syncthing does on disk to put a received version in place, without Syncthing: the
/// daemon reports it as the atomic save it is.
@Suite(.ownThreads) struct EngineReplaceTests {
    @Test func deleteThenRenameOfTheEnginesTemporaryFileIsOneChange() async throws {
        try await withTestDaemon { daemon in
            let item = try daemon.place("Item_1", contents: "milk")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","attributes":["size"],"batchingInterval":0}"#)
            _ = try TwoDevicesTests.next(client, "query.gatheringFinished")
            let temporary = daemon.documents() + "/.syncthing.Item_1.tmp"
            try "oat milk".write(toFile: temporary, atomically: false, encoding: .utf8)
            // Syncthing's performFinish: remove the old file, rename the new one into place.
            #expect(unlink(item) == 0)
            #expect(rename(temporary, item) == 0)
            let update = try TwoDevicesTests.next(client, "query.update")
            #expect(update["removed"]?.arrayValue?.isEmpty == true, "\(update)")
            #expect(update["added"]?.arrayValue?.isEmpty == true, "\(update)")
            #expect(update["changed"]?.arrayValue?.first?["attributes"]?["kMDItemFSSize"]?.intValue == 8, "\(update)")
        }
    }

    @Test func aReceivedVersionInConflictKeepsTheItemAndShowsTheConflict() async throws {
        try await withTestDaemon { daemon in
            let item = try daemon.place("Item_1", contents: "milk")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","attributes":["size","hasUnresolvedConflicts"],"batchingInterval":0}"#)
            _ = try TwoDevicesTests.next(client, "query.gatheringFinished")
            let temporary = daemon.documents() + "/.syncthing.Item_1.tmp"
            try "oat milk".write(toFile: temporary, atomically: false, encoding: .utf8)
            // The engine wrote its temporary file a while before (the daemon has seen it): a
            // one-shot query is a barrier for every change made before it.
            _ = try client.request(#"{"id":2,"op":"query.start","predicate":"FALSEPREDICATE","live":false}"#)
            // Syncthing's moveForConflict, then the rename of the received version into place.
            #expect(rename(item, daemon.documents() + "/Item_1.sync-conflict-20261122-103000-ABCDEFG") == 0)
            #expect(rename(temporary, item) == 0)
            var changed: [JSONValue] = []
            while changed.isEmpty {
                let update = try TwoDevicesTests.next(client, "query.update")
                #expect(update["removed"]?.arrayValue?.isEmpty == true, "\(update)")
                #expect(update["added"]?.arrayValue?.isEmpty == true, "\(update)")
                changed = update["changed"]?.arrayValue ?? []
            }
            let attributes = changed.last?["attributes"]
            #expect(attributes?["kMDItemFSSize"]?.intValue == 8, "\(changed)")
            #expect(attributes?["NSMetadataUbiquitousItemHasUnresolvedConflictsKey"] == .bool(true), "\(changed)")
        }
    }
}
