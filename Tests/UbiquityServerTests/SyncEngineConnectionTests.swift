import Foundation
import Testing
import UbiquityJSON
import UbiquityProtocol
@testable import UbiquityServer
import UbiquityTesting

/// The daemon following a real Syncthing (the two-device rig: two instances in a private network
/// namespace, REST on Unix sockets): connected with the folder mapped to its container by path,
/// a container Syncthing does not share named, the event stream followed as the other device
/// changes files, a wrong key and a dead address reported as such. Needs root (unshare).
@Suite("Sync engine connection with real Syncthing", .ownThreads)
struct SyncEngineConnectionTests {
    /// A daemon serving device A's container (and one of its own that Syncthing does not share),
    /// following the engine as `sync` configures it.
    static func withFollower<T>(_ devices: TwoDevices, sync: String, _ body: (InProcessDaemon, SyncEngineMonitor) async throws -> T) async throws -> T {
        try await withDaemon(containers: ["com.example.other"], arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"],
                             prepare: { root in
            let config = """
                [[roots]]
                path = "\(root)"

                [[containers]]
                id = "com.example.grocery"
                path = "\(devices.a.container)"

                [sync]
                engine = "syncthing"
                \(sync)
                """
            try config.write(toFile: (root as NSString).deletingLastPathComponent + "/ubiquityd.toml", atomically: true, encoding: .utf8)
        }) { daemon in
            let monitor = try #require(daemon.daemon.syncEngine)
            return try await body(daemon, monitor)
        }
    }

    static func status(_ daemon: InProcessDaemon) throws -> JSONValue {
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        return try #require(try client.request(#"{"id":1,"op":"status"}"#).response["result"])
    }

    @Test("Connected through config.xml: the device, the shared folder, the unshared container, events followed; a wrong key; a dead address")
    func followsSyncthing() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let home = (devices.a.syncthing.socket as NSString).deletingLastPathComponent
        try await Self.withFollower(devices, sync: "config_xml = \"\(home)/config.xml\"") { daemon, monitor in
            let connected = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil,
                                         "never connected: \(monitor.status)")
            #expect(connected.device == devices.a.deviceID)
            #expect(connected.address == devices.a.syncthing.socket)
            #expect(connected.folders == [.init(container: "com.example.grocery", folder: "com.example.grocery")])
            #expect(connected.unshared == ["com.example.other"])
            try await daemon.waitForLog("sync engine connected")

            let status = try Self.status(daemon)
            #expect(status["syncEngine"]?["state"]?.stringValue == "connected", "\(status)")
            #expect(status["degraded"]?.arrayValue?.contains { $0.stringValue?.contains("does not share container com.example.other") == true } == true)
            let printed = try BuiltExecutable("ubiq").run(["status", "--socket", daemon.socket])
            #expect(printed.stdout.contains("sync engine  syncthing at \(devices.a.syncthing.socket): connected, device \(devices.a.deviceID), shares com.example.grocery"),
                    "\(printed.stdout)")

            // Files on demand do not go through the engine yet, and say so.
            let evictable = try devices.a.place("Item_evict", contents: "keep me")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let evict = try client.request(#"{"id":1,"op":"item.evict","path":"\#(evictable)"}"#).response
            #expect(evict["error"]?["code"]?.stringValue == "sync.noEngine", "\(evict)")
            #expect(evict["error"]?["message"]?.stringValue?.contains("does not yet evict or download through it") == true, "\(evict)")

            // B changes a file: A's Syncthing pulls it, and its events reach the daemon.
            let before = monitor.status.lastEvent
            try devices.b.place("Item_from_b", contents: "bread")
            try devices.waitUntilInSync()
            let moved = try await firstWithin(30) { await monitor.first { $0.lastEvent > before } } ?? nil
            #expect(moved != nil, "no event read after \(before): \(monitor.status)")
            #expect(monitor.status.state == .connected)
        }
        try await Self.withFollower(devices, sync: "address = \"\(devices.a.syncthing.socket)\"\napi_key = \"not-the-key\"") { daemon, monitor in
            let refused = try #require(try await firstWithin(30) { await monitor.first { $0.state == .unauthorized } } ?? nil,
                                       "\(monitor.status)")
            #expect(refused.reason?.contains("refused the API key") == true, "\(refused)")
            try await daemon.waitForLog("sync engine unauthorized")
            let status = try Self.status(daemon)
            #expect(status["degraded"]?.arrayValue?.contains { $0.stringValue?.contains("sync attributes are unknown") == true } == true,
                    "\(status)")
        }
        try await Self.withFollower(devices, sync: "address = \"\(home)/no-such.sock\"\napi_key = \"k\"") { _, monitor in
            let down = try #require(try await firstWithin(30) { await monitor.first { $0.state == .unreachable } } ?? nil,
                                    "\(monitor.status)")
            #expect(down.reason?.contains("no-such.sock") == true, "\(down)")
        }
    }

    @Test("isUploaded from Syncthing: a new file is not uploaded while the other device is paused, and becomes uploaded, held by it, once resumed")
    func uploadedFollowsTheOtherDevice() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let home = (devices.a.syncthing.socket as NSString).deletingLastPathComponent
        try await Self.withFollower(devices, sync: "config_xml = \"\(home)/config.xml\"") { daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name == 'Item_paused'","batchingInterval":0,"attributes":["name","isUploaded","currentVersionDevices","downloadingStatus"]}"#)
            _ = try TwoDevicesTests.next(client, "query.gatheringFinished")

            try devices.a.syncthing.call("POST", "/rest/system/pause?device=\(devices.b.deviceID)")
            let since = Int(monitor.status.lastEvent)
            try devices.a.place("Item_paused", contents: "made while B is paused")
            let added = try TwoDevicesTests.next(client, "query.update")
            let item = try #require(added["added"]?.arrayValue?.first?["attributes"], "\(added)")
            #expect(item["NSMetadataUbiquitousItemIsUploadedKey"] == .bool(false), "\(item)")
            #expect(item["NSMetadataUbiquitousItemDownloadingStatusKey"]?.stringValue == "current")

            // A's Syncthing indexes the file; once the daemon has read past that event, B (paused)
            // still needs it: no update may say it is uploaded.
            var seen = since
            while true {
                let next = devices.a.syncthing.nextEvent(of: "LocalIndexUpdated", since: seen, within: 30)
                #expect(next > seen, "A's Syncthing never indexed the file")
                if next <= seen { return }
                seen = next
                if try devices.a.syncthing.call("GET", "/rest/db/file?folder=com.example.grocery&file=Documents/Item_paused") != nil { break }
            }
            let indexed = Int64(seen)
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.lastEvent >= indexed } } ?? nil, "\(monitor.status)")
            var early: [JSONValue] = []
            while let message = try? client.readJSON(within: 1) {    // a window in which nothing may say "uploaded"
                early.append(message)
            }
            #expect(!early.contains { $0["changed"]?.arrayValue?.contains { $0["attributes"]?["NSMetadataUbiquitousItemIsUploadedKey"] == .bool(true) } == true },
                    "\(early)")

            try devices.a.syncthing.call("POST", "/rest/system/resume?device=\(devices.b.deviceID)")
            var uploaded: JSONValue?
            let deadline = Date().addingTimeInterval(60)
            while uploaded == nil, Date() < deadline {
                let update = try TwoDevicesTests.next(client, "query.update", within: max(0.01, deadline.timeIntervalSinceNow))
                uploaded = update["changed"]?.arrayValue?.first { $0["attributes"]?["NSMetadataUbiquitousItemIsUploadedKey"] == .bool(true) }
            }
            let attributes = try #require(uploaded?["attributes"], "never uploaded: \(monitor.status)")
            #expect(attributes["currentVersionDevices"]?.arrayValue?.compactMap(\.stringValue) == [devices.b.deviceID], "\(attributes)")
            #expect(try String(contentsOfFile: devices.b.documents + "/Item_paused", encoding: .utf8) == "made while B is paused")
        }
    }
}
