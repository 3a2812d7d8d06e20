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
}
