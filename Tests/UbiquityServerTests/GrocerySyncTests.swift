import Foundation
import Testing
import UbiquityJSON
@testable import UbiquityServer
import UbiquityTesting

/// Grocery on a daemon that follows Syncthing: `grocery list` marks an item no other device holds
/// yet, and `grocery status` shows the other device and what it still needs — both back to "all
/// there" once the other device has the item.
@Suite("Grocery's sync marks with real Syncthing", .serialized, .ownThreads)
struct GrocerySyncTests {
    static func grocery(_ arguments: [String], _ daemon: InProcessDaemon) throws -> JSONValue {
        let result = try BuiltExecutable("grocery").run(arguments + ["--json", "--socket", daemon.socket])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONLine.parse(Array((result.stdout.split(separator: "\n").first.map(String.init) ?? "null").utf8))
    }

    @Test("An item added while the other device is paused is marked, and the mark goes once that device has it")
    func listAndStatusFollowTheOtherDevice() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let home = (devices.a.syncthing.socket as NSString).deletingLastPathComponent
        try await SyncEngineConnectionTests.withFollower(devices, sync: "config_xml = \"\(home)/config.xml\"") { daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0,"attributes":["name","isUploaded"]}"#)
            _ = try TwoDevicesTests.next(client, "query.gatheringFinished")

            try devices.a.syncthing.call("POST", "/rest/system/pause?device=\(devices.b.deviceID)")
            _ = try Self.grocery(["add", "eggs"], daemon)
            let marked = try Self.grocery(["list"], daemon)
            #expect(marked["name"]?.stringValue == "eggs", "\(marked)")
            #expect(marked["sync"]?.stringValue == "notUploaded", "\(marked) LOG: \(daemon.log)")
            let apart = try Self.grocery(["status"], daemon)
            #expect(apart["sync"]?.stringValue == "known", "\(apart)")
            #expect(apart["devices"]?.arrayValue?.compactMap { $0["device"]?.stringValue } == [devices.b.deviceID], "\(apart)")
            let printed = try BuiltExecutable("grocery").run(["list", "--socket", daemon.socket], environment: ["NO_COLOR": "1"])
            #expect(printed.stdout.contains("eggs  ↑ not on other devices yet"), "\(printed.stdout)")

            try devices.a.syncthing.call("POST", "/rest/system/resume?device=\(devices.b.deviceID)")
            var uploaded = false
            let deadline = Date().addingTimeInterval(60)
            while !uploaded, Date() < deadline {
                let update = try TwoDevicesTests.next(client, "query.update", within: max(0.01, deadline.timeIntervalSinceNow))
                uploaded = update["changed"]?.arrayValue?.contains { $0["attributes"]?["NSMetadataUbiquitousItemIsUploadedKey"] == .bool(true) } == true
            }
            #expect(uploaded, "B never got the item: \(monitor.status)")
            let together = try Self.grocery(["list"], daemon)
            #expect(together["name"]?.stringValue == "eggs" && together["sync"] == nil, "\(together)")
            let status = try Self.grocery(["status"], daemon)
            let device = try #require(status["devices"]?.arrayValue?.first, "\(status)")
            let connections = device["connected"] == .bool(true) ? "" : String(describing: try devices.a.syncthing.call("GET", "/rest/events?since=0"))
            #expect(device["connected"] == .bool(true) && device["needs"] == .integer(0), "\(status) \(monitor.status) \(connections) LOG: \(daemon.log)")
        }
    }
}
