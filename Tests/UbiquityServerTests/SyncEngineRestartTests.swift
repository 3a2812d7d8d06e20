import Foundation
import Testing
import UbiquityJSON
@testable import UbiquityServer
import UbiquityTesting

/// What the daemon does when Syncthing restarts between two of its polls, or drops events, on cue
/// (``FakeSyncthing``): a real instance cannot be made to restart without breaking the poll in
/// progress (that case, with real Syncthing, is in ``SyncEngineConnectionTests``).
@Suite("Sync engine restarts and lost events, with a stand-in for Syncthing", .ownThreads)
struct SyncEngineRestartTests {
    @Test("Restarted between two polls, with fewer events than the daemon read: the quiet poll's start time tells, everything is read again and no attribute turns unknown; events lost past the buffer: read again, still connected")
    func restartBetweenPollsAndLostEvents() async throws {
        try await FakeSyncthing.withFollower(holding: ["Item_1", "Item_2"], prepare: { $0.events = (1...57).map { ($0, "Ping") } }) { _, engine, daemon, monitor in
            let items = try await FakeSyncthing.liveItems(daemon, monitor, afterEvent: 57)
            let key = SyncEngineConnectionTests.isUploaded
            var unknownSeen = false
            func uploaded(_ expected: [String: Bool]) -> ([String: JSONValue]) -> Bool {
                { attributes in
                    if attributes.values.contains(where: { $0[key] == nil }) { unknownSeen = true }
                    return expected.allSatisfy { attributes[$0.key]?[key] == .bool($0.value) }
                }
            }
            #expect(try items.wait(within: 30, until: uploaded(["Item_1": true, "Item_2": true])), "\(items.attributes)")

            // Restarted while the daemon waits on `since=57`: the new run has 3 events, so the poll
            // comes back empty; the start time differs. The other device now needs Item_1.
            engine.change {
                $0.startTime = "2026-11-25T10:05:00.000000002Z"
                $0.events = [(1, "Starting"), (2, "StartupComplete"), (3, "Ping")]
                $0.remoteNeed = ["Documents/Item_1"]
            }
            #expect(try items.wait(within: 30, until: uploaded(["Item_1": false, "Item_2": true])), "\(items.attributes), \(monitor.status)")
            #expect(!unknownSeen, "a restart seen while Syncthing answers turned attributes unknown")
            let restarted = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected && $0.lastEvent == 3 } } ?? nil,
                                         "\(monitor.status)")
            #expect(restarted.resyncs == 1 && restarted.reason == nil, "\(restarted)")
            try await daemon.waitForLog("sync engine restarted")

            // More events than the buffer keeps came between two polls (4…1,499 are gone): none of
            // those left is one the daemon reads the facts after, yet it reads them again.
            engine.change {
                $0.events = [(1, "Starting"), (2, "StartupComplete"), (3, "Ping")] + (1_500...2_499).map { ($0, "Ping") }
                $0.remoteNeed = ["Documents/Item_2"]
            }
            #expect(try items.wait(within: 30, until: uploaded(["Item_1": true, "Item_2": false])), "\(items.attributes), \(monitor.status)")
            let lost = try #require(try await firstWithin(30) { await monitor.first { $0.lastEvent == 2_499 } } ?? nil, "\(monitor.status)")
            #expect(lost.resyncs == 2 && lost.state == .connected, "\(lost)")
            try await daemon.waitForLog("sync engine events were lost")
            #expect(!unknownSeen, "\(daemon.log)")

            // Events that follow on are applied as they come: only a fact event makes the daemon read again.
            engine.change {
                $0.remoteNeed = []
                $0.events.append((2_500, "Ping"))
            }
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.lastEvent == 2_500 } } ?? nil, "\(monitor.status)")
            // A window in which nothing may change: the facts are not read again for that event.
            #expect(try !items.wait(within: 1, until: uploaded(["Item_2": true])), "read again without a fact event: \(items.attributes)")
            engine.change { $0.events.append((2_501, "RemoteIndexUpdated")) }
            #expect(try items.wait(within: 30, until: uploaded(["Item_1": true, "Item_2": true])), "\(items.attributes), \(monitor.status)")
            #expect(monitor.status.resyncs == 2)
        }
    }
}
