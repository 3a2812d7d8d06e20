import Foundation
import Testing
import UbiquityPredicate
import UbiquityTesting

/// Two devices replicating one container through real Syncthing (two instances in a private
/// network namespace) and two real daemons: a change on one device reaches the other device's
/// live query. Needs root (unshare).
@Suite struct TwoDevicesTests {
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
