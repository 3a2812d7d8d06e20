import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityStore
import UbiquityTesting
@testable import UbiquityServer

/// Snapshots and compaction in the real daemon (docs/stores.md, "Snapshots and compaction"):
/// its 50th save writes a snapshot; its segments stay while another device has not acknowledged
/// them and go once it has; a device whose acknowledgement is older than 30 days is named in
/// `status`.
@Suite("Store compaction against the real daemon", .serialized, .ownThreads)
struct StoreCompactionDaemonTests {
    typealias T = StoreDaemonTests

    /// Writes `acks/<device>` as that device's sync engine would deliver it, dated `age` ago.
    static func acknowledge(_ object: String, device: String, age seconds: Int, root: String) throws {
        let folder = "\(root)/\(T.container)/.ubiquity-stores/grocery/acks"
        let temporary = "\(folder)/.syncthing.\(device).tmp"
        try Data((object + "\n").utf8).write(to: URL(fileURLWithPath: temporary))
        var times = [timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), timespec(tv_sec: time(nil) - seconds, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, temporary, &times, 0) == 0, rename(temporary, "\(folder)/\(device)") == 0 else {
            throw TestDaemonError("acknowledgement not written: \(errno)")
        }
    }

    @Test("The 50th save writes a snapshot; segments go once the other device acknowledged them; a device silent 40 days is in status")
    func snapshotThenCompactionThenSilence() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            let device = try #require(try T.open(client)["device"]?.stringValue)
            let store = "\(daemon.root)/\(T.container)/.ubiquity-stores/grocery"
            // The phone is known: its segment 1 is here, and it has acknowledged nothing.
            var phone = StoreReplica(schema: T.schema, device: DeviceID("phone")!)
            try T.deliver(try T.segment(&phone, inserting: ["bread"], ids: [1]), device: "phone", sequence: 1, root: daemon.root)
            _ = try T.nextChange(client)
            for n in 1...50 {
                let saved = try client.result(#"{"id":\#(n + 1),"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"item \#(n)"}}]}"#)
                #expect(saved["segment"] == .integer(Int64(n)))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(store)/snapshots/\(device)") == ["50"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(store)/logs/\(device)").count == 50, "the phone has acknowledged none")

            // The phone acknowledges 40 of them, 40 days ago; its next segment's import also compacts.
            try Self.acknowledge(#"{"\#(device)":40,"phone":1}"#, device: "phone", age: 40 * 86_400, root: daemon.root)
            try T.deliver(try T.segment(&phone, inserting: ["milk"], ids: [2]), device: "phone", sequence: 2, root: daemon.root)
            _ = try T.nextChange(client)
            let left = try FileManager.default.contentsOfDirectory(atPath: "\(store)/logs/\(device)").compactMap { Int($0) }.sorted()
            #expect(left == Array(41...50))

            let status = try client.result(#"{"id":60,"op":"status"}"#)
            let phoneStatus = status["stores"]?.arrayValue?.first?["devices"]?.arrayValue?.first { $0["device"]?.stringValue == "phone" }
            #expect(phoneStatus?["silentSince"]?.intValue != nil)
            let sentences = status["degraded"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(sentences.contains { $0.contains("device phone has acknowledged nothing since") })

            // Rows are all there, of course: compaction removes files, never data.
            let fetched = try client.result(#"{"id":61,"op":"store.fetch","store":"grocery","table":"items"}"#)
            #expect(fetched["count"] == .integer(52))
        }
    }

    /// An in-process daemon whose configuration has `stores` (lines of keys) as its `[stores]`.
    static func withStoresConfigured(_ stores: String, _ body: (InProcessDaemon) async throws -> Void) async throws {
        try await UbiquityTesting.withDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
            let config = "[[roots]]\npath = \"\(root)\"\n\n[stores]\n\(stores)\n"
            try Data(config.utf8).write(to: URL(fileURLWithPath: (root as NSString).deletingLastPathComponent + "/ubiquityd.toml"))
        }, body)
    }

    @Test("[stores] in the configuration: snapshot_every = 5 writes a snapshot at every 5th save (and, alone, compacts at once); silent_after_s = 3600 calls a device silent after an hour")
    func configuredIntervalAndSilence() async throws {
        try await Self.withStoresConfigured("snapshot_every = 5\nsilent_after_s = 3600") { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            let device = try #require(try T.open(client)["device"]?.stringValue)
            let store = "\(daemon.root)/\(T.container)/.ubiquity-stores/grocery"
            for n in 1...4 {
                _ = try client.result(#"{"id":\#(n + 1),"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"item \#(n)"}}]}"#)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(store)/snapshots/\(device)").isEmpty)
            _ = try client.result(#"{"id":6,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"item 5"}}]}"#)
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(store)/snapshots/\(device)") == ["5"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(store)/logs/\(device)").compactMap { Int($0) }.isEmpty,
                    "no other device is known: the snapshot is enough")

            // A phone whose acknowledgement is two hours old is silent under silent_after_s = 3600.
            try Self.acknowledge(#"{"\#(device)":5}"#, device: "phone", age: 7_200, root: daemon.root)
            let phone = try client.result(#"{"id":7,"op":"status"}"#)["stores"]?.arrayValue?.first?["devices"]?.arrayValue?
                .first { $0["device"]?.stringValue == "phone" }
            #expect(phone?["silentSince"]?.intValue != nil, "\(String(describing: phone))")
        }
    }

    @Test("[stores] floor_after_s = 0: a deleted row shrinks to its floor at the next import pass; the journal says so and status counts it")
    func flooredRowsAreLoggedAndCounted() async throws {
        try await Self.withStoresConfigured("floor_after_s = 0") { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            _ = try T.open(client)
            let counts = { (id: Int) throws -> [JSONValue?] in
                let store = try client.result(#"{"id":\#(id),"op":"status"}"#)["stores"]?.arrayValue?.first
                return [store?["floored"], store?["repairs"]]
            }
            #expect(try counts(2) == [.integer(0), .integer(0)])
            let saved = try client.result(#"{"id":3,"op":"store.save","store":"grocery","changes":[{"insert":"items","values":{"name":"bread"}}]}"#)
            let id = try #require(saved["inserted"]?.arrayValue?.first?.stringValue)
            _ = try client.result(#"{"id":4,"op":"store.save","store":"grocery","changes":[{"delete":"items","id":"\#(id)"}]}"#)
            // The delete's own segment starts an import pass; alone, this device is at a quiet point.
            try await daemon.waitForLog("store rows shrunk to floors", "rows=1")
            #expect(try counts(5) == [.integer(1), .integer(0)])
            #expect(try client.result(#"{"id":6,"op":"store.fetch","store":"grocery","table":"items"}"#)["count"] == .integer(0))
        }
    }

    @Test("A device whose first segments were compacted and whose snapshot is damaged: the snapshot is logged once as unusable, the device's import is degraded saying why, the others go on")
    func damagedSnapshotOfACompactedLog() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            _ = try T.open(client)
            let store = "\(daemon.root)/\(T.container)/.ubiquity-stores/grocery"
            var tablet = StoreReplica(schema: T.schema, device: DeviceID("tablet")!)
            for n in 1...3 { _ = try T.segment(&tablet, inserting: ["item \(n)"], ids: [UInt64(n)]) }
            var damaged = try Snapshot(device: tablet.device, sequence: 3, clock: tablet.clock.latest, watermarks: [tablet.device: 3],
                                       state: tablet.state).encoded()
            damaged[damaged.count / 2] ^= 0x08
            try FileManager.default.createDirectory(atPath: "\(store)/snapshots/tablet", withIntermediateDirectories: true)
            // Put in place whole, as a sync engine does: a temporary name, then a rename.
            try Data(damaged).write(to: URL(fileURLWithPath: "\(store)/snapshots/tablet/.syncthing.3.tmp"))
            #expect(rename("\(store)/snapshots/tablet/.syncthing.3.tmp", "\(store)/snapshots/tablet/3") == 0)
            // Segments 1 to 3 are gone (compacted); 4 arrives.
            try T.deliver(try T.segment(&tablet, inserting: ["item 4"], ids: [4]), device: "tablet", sequence: 4, root: daemon.root)
            // Both lines are logged one after the other, and reach the captured log in turn: wait for each.
            try await daemon.waitForLog("store import degraded")
            try await daemon.waitForLog("store snapshot unusable")
            let described = try client.result(#"{"id":2,"op":"store.describe","store":"grocery"}"#)
            let state = described["devices"]?.arrayValue?.first { $0["device"]?.stringValue == "tablet" }
            #expect(state?["state"] == .string("degraded") && state?["sequence"] == .integer(1) && state?["code"] == .string("store.segmentChecksum"))
            #expect(state?["reason"]?.stringValue?.contains("it is not here (compacted), and snapshot 3 of device tablet") == true)
            // Another device goes on, and the snapshot is not logged again.
            var phone = StoreReplica(schema: T.schema, device: DeviceID("phone")!)
            try T.deliver(try T.segment(&phone, inserting: ["bread"], ids: [9]), device: "phone", sequence: 1, root: daemon.root)
            _ = try T.nextChange(client)
            #expect(daemon.log.components(separatedBy: "store snapshot unusable").count == 2, "logged once")
        }
    }
}
