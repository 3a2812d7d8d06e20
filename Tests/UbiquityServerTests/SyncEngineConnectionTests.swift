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
        try await withFollower(container: devices.a.container, sync: sync, body)
    }

    /// A daemon serving `container` as com.example.grocery (and `alsoServing`, its own containers
    /// that no engine shares), following the engine as the `[sync]` lines `sync` configure it.
    static func withFollower<T>(container: String, alsoServing: [String] = ["com.example.other"], sync: String,
                                _ body: (InProcessDaemon, SyncEngineMonitor) async throws -> T) async throws -> T {
        try await withDaemon(containers: alsoServing, arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"],
                             prepare: { root in
            let config = """
                [[roots]]
                path = "\(root)"

                [[containers]]
                id = "com.example.grocery"
                path = "\(container)"

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

            // A file just made here is held by no other device yet: evicting it is refused.
            let evictable = try devices.a.place("Item_evict", contents: "keep me")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let evict = try client.request(#"{"id":1,"op":"item.evict","path":"\#(evictable)"}"#).response
            #expect(evict["error"]?["code"]?.stringValue == "sync.notHeldElsewhere", "\(evict)")
            #expect(FileManager.default.fileExists(atPath: evictable))

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
            // A stream filtered by type numbers its events apart from the whole stream the daemon
            // reads: each id below is compared only with ids of its own stream.
            let since = devices.a.syncthing.nextEvent(of: "LocalIndexUpdated", since: 0, within: 1)
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
            let newest = try #require(try devices.a.syncthing.call("GET", "/rest/events?since=0&limit=1") as? [[String: Any]])
            let indexed = Int64(newest.compactMap { $0["id"] as? Int }.max() ?? 0)
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.lastEvent >= indexed } } ?? nil, "\(monitor.status)")
            var early: [JSONValue] = []
            while let message = try? client.readJSON(within: 1) {    // a window in which nothing may say "uploaded"
                early.append(message)
            }
            #expect(!early.contains { $0["changed"]?.arrayValue?.contains { $0["attributes"]?["NSMetadataUbiquitousItemIsUploadedKey"] == .bool(true) } == true },
                    "\(early); \(monitor.status)")

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

    /// The items of a live query by name, with their attributes as the latest event gave them.
    final class LiveItems {
        let client: RawClient
        private(set) var attributes: [String: JSONValue] = [:]

        init(_ client: RawClient, gathered: JSONValue) {
            self.client = client
            take(gathered["results"])
        }

        private func take(_ items: JSONValue?) {
            for item in items?.arrayValue ?? [] {
                if let name = item["attributes"]?["kMDItemFSName"]?.stringValue { attributes[name] = item["attributes"] }
            }
        }

        /// Reads the query's updates until `condition` holds for the items, or `seconds` pass.
        /// - Returns: whether it holds.
        func wait(within seconds: Double, until condition: ([String: JSONValue]) -> Bool) throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !condition(attributes) {
                guard Date() < deadline else { return false }
                let message: JSONValue
                do { message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow)) } catch { return condition(attributes) }
                guard message["event"]?.stringValue == "query.update" else { continue }
                take(message["added"])
                take(message["changed"])
                for item in message["removed"]?.arrayValue ?? [] {
                    if let name = item["attributes"]?["kMDItemFSName"]?.stringValue { attributes[name] = nil }
                }
            }
            return true
        }
    }

    static let isUploaded = "NSMetadataUbiquitousItemIsUploadedKey"
    static let downloadingStatus = "NSMetadataUbiquitousItemDownloadingStatusKey"

    @Test("Syncthing killed and restarted: the sync attributes become unknown and status says unreachable; after the restart they are right again and status says connected; no crash")
    func engineKilledAndRestarted() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let names = ["Item_r1", "Item_r2", "Item_r3"]
        for name in names { try devices.a.place(name, contents: "made on A: \(name)") }
        try devices.waitUntilInSync()
        let home = devices.syncthingHome(of: devices.a)
        try await Self.withFollower(devices, sync: "config_xml = \"\(home)/config.xml\"") { daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            let client = try RawClient.greeted(socket: daemon.socket)
            try client.send(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_r*'","batchingInterval":0,"attributes":["name","isUploaded","downloadingStatus"]}"#)
            let items = LiveItems(client, gathered: try TwoDevicesTests.next(client, "query.gatheringFinished"))
            let right: ([String: JSONValue]) -> Bool = { attributes in
                names.allSatisfy { attributes[$0]?[Self.isUploaded] == .bool(true) && attributes[$0]?[Self.downloadingStatus] == .string("current") }
            }
            let unknown: ([String: JSONValue]) -> Bool = { attributes in
                names.allSatisfy { attributes[$0] != nil && attributes[$0]?[Self.isUploaded] == nil && attributes[$0]?[Self.downloadingStatus] == nil }
            }
            #expect(try items.wait(within: 30, until: right), "B holds every item, yet: \(items.attributes)")

            // Killed: every sync attribute of the shared container becomes unknown (absent), in a
            // `changed` of the live query, and status says why.
            try devices.killSyncthing(of: devices.a)
            let down = try #require(try await firstWithin(30) { await monitor.first { $0.state == .unreachable } } ?? nil, "\(monitor.status)")
            #expect(down.reason?.contains(devices.a.syncthing.socket) == true, "\(down)")
            #expect(try items.wait(within: 30, until: unknown), "not unknown while Syncthing is down: \(items.attributes)")
            let whileDown = try Self.status(daemon)
            #expect(whileDown["syncEngine"]?["state"]?.stringValue == "unreachable", "\(whileDown)")
            #expect(whileDown["degraded"]?.arrayValue?.contains { $0.stringValue?.contains("sync attributes are unknown") == true } == true,
                    "\(whileDown)")
            let printed = try BuiltExecutable("ubiq").run(["status", "--socket", daemon.socket])
            #expect(printed.stdout.contains("syncthing at \(devices.a.syncthing.socket): unreachable"), "\(printed.stdout)")

            // Started again with the same home: the attributes are right again, and status says connected.
            let restarted = ContinuousClock.now
            try devices.restartSyncthing(of: devices.a)
            #expect(try items.wait(within: 60, until: right), "not right again after the restart: \(items.attributes), \(monitor.status)")
            let latency = ContinuousClock.now - restarted
            let up = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            #expect(up.device == devices.a.deviceID)
            #expect(try Self.status(daemon)["syncEngine"]?["state"]?.stringValue == "connected")
            print("sync engine restart: Syncthing started again → every item's sync attributes right again in \(latency)")

            // The new run's events are followed: a file made on A after the restart becomes uploaded.
            try devices.waitUntilConnected()
            try devices.a.place("Item_r4", contents: "made after the restart")
            #expect(try items.wait(within: 60) { $0["Item_r4"]?[Self.isUploaded] == .bool(true) }, "\(items.attributes), \(monitor.status)")
            #expect(try Self.status(daemon)["syncEngine"]?["state"]?.stringValue == "connected")
        }
    }
}
