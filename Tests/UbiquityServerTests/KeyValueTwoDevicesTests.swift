import Foundation
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// The key-value store across two devices replicated by real Syncthing (TwoDevices): changes
/// arrive as kv.changed, concurrent writes converge, and Syncthing never makes a conflict of it.
/// Needs root (unshare).
@Suite(.serialized, .ownThreads) struct KeyValueTwoDevicesTests {
    static func connect(_ device: TwoDevices.Device, subscribe: Bool = true) throws -> RawClient {
        let client = try RawClient(socket: device.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        if subscribe { _ = try client.request(#"{"id":1,"op":"kv.subscribe"}"#) }
        return client
    }

    /// The next kv.changed naming `key`, within a deadline.
    static func change(_ client: RawClient, naming key: String, within seconds: Double = 60) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == "kv.changed",
               message["keys"]?.arrayValue?.contains(.string(key)) == true { return message }
        }
        throw TestDaemonError("no kv.changed for \(key) within \(seconds) s")
    }

    static func values(_ client: RawClient) throws -> JSONValue? {
        try client.request(#"{"id":9,"op":"kv.all"}"#).response["result"]?["values"]
    }

    /// Every file name under the container's store folder and Documents, for conflict checks.
    static func storeFiles(_ device: TwoDevices.Device) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: device.container + "/.ubiquity-kv")) ?? []
    }

    @Test func aSetOnOneDeviceReachesTheOtherDevicesSubscriber() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let onB = try Self.connect(devices.b)
        let writer = try Self.connect(devices.a, subscribe: false)
        _ = try writer.request(#"{"id":2,"op":"kv.set","key":"sortOrder","value":"created"}"#)
        // The first values B ever receives from another device.
        let first = try Self.change(onB, naming: "sortOrder")
        #expect(first["reason"] == .string("initialSyncChange"), "\(first)")
        _ = try writer.request(#"{"id":3,"op":"kv.set","key":"launches","value":7}"#)
        let second = try Self.change(onB, naming: "launches")
        #expect(second["reason"] == .string("serverChange"), "\(second)")
        #expect(second["keys"] == .array([.string("launches")]))
        let onBValues = try Self.values(onB)
        #expect(onBValues?["sortOrder"] == .string("created") && onBValues?["launches"]?.intValue == 7)
        _ = try writer.request(#"{"id":4,"op":"kv.remove","key":"sortOrder"}"#)
        #expect(try Self.change(onB, naming: "sortOrder")["reason"] == .string("serverChange"))
        #expect(try Self.values(onB)?["sortOrder"] == nil)
    }

    @Test func concurrentSetsWhileApartConvergeWithoutAConflict() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let onA = try Self.connect(devices.a), onB = try Self.connect(devices.b)
        // A first value, so that both devices have each other's file before they part.
        _ = try onA.request(#"{"id":2,"op":"kv.set","key":"shared","value":"start"}"#)
        _ = try Self.change(onB, naming: "shared")
        _ = try onB.request(#"{"id":2,"op":"kv.set","key":"fromB","value":0}"#)
        _ = try Self.change(onA, naming: "fromB")

        try devices.a.syncthing.call("POST", "/rest/system/pause?device=\(devices.b.deviceID)")
        _ = try onA.request(#"{"id":3,"op":"kv.set","key":"shared","value":"written on A"}"#)
        _ = try onA.request(#"{"id":4,"op":"kv.set","key":"onlyA","value":1}"#)
        _ = try onB.request(#"{"id":3,"op":"kv.set","key":"onlyB","value":2}"#)
        _ = try onB.request(#"{"id":4,"op":"kv.set","key":"shared","value":"written on B, later"}"#)
        for device in [devices.a, devices.b] { try device.syncthing.call("POST", "/rest/db/scan?folder=\(TwoDevices.containerID)") }
        try devices.a.syncthing.call("POST", "/rest/system/resume?device=\(devices.b.deviceID)")

        _ = try Self.change(onA, naming: "onlyB")
        _ = try Self.change(onB, naming: "onlyA")
        try devices.waitUntilInSync()
        let a = try Self.values(onA), b = try Self.values(onB)
        #expect(a == b, "A: \(a.map(JSONLine.encode) ?? "-")\nB: \(b.map(JSONLine.encode) ?? "-")")
        #expect(a?["shared"] == .string("written on B, later"))
        #expect(a?["onlyA"]?.intValue == 1 && a?["onlyB"]?.intValue == 2 && a?["fromB"]?.intValue == 0)
        for device in [devices.a, devices.b] {
            let files = Self.storeFiles(device)
            #expect(files.count == 2 && !files.contains { $0.contains("sync-conflict") }, "on \(device.name): \(files)")
        }
        // Nothing of the store reaches a query that asks for every file, hidden or not.
        let query = #"{"id":5,"op":"query.start","predicate":"kMDItemFSInvisible == YES OR kMDItemFSInvisible == NO","scope":"all","live":false}"#
        for client in [onA, onB] {
            try client.send(query)
            var finished: JSONValue?
            while finished == nil {
                let message = try client.readJSON(within: 30)
                if message["event"]?.stringValue == "query.gatheringFinished" { finished = message }
            }
            #expect(!JSONLine.encode(finished!).contains("ubiquity-kv"))
        }
    }
}
