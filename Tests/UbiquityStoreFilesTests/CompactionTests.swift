import Glibc
import Testing
import UbiquityStore
@testable import UbiquityStoreFiles
import UbiquitySystem
import UbiquityTesting

/// Snapshots and compaction with three devices' stores over one shared folder (as Syncthing
/// makes it): each writes a snapshot every 5 of its segments, removes its own segments once the
/// snapshot covers them and every known device has acknowledged them; a device that comes late
/// starts from the snapshots and ends with the same state as the others.
@Suite("Snapshots and compaction")
struct CompactionTests {
    static let carrots = RowID("000000000000000000000000000000c1")!
    static let bread = RowID("000000000000000000000000000000b2")!
    static let milk = RowID("000000000000000000000000000000d3")!
    static let mall = RowID("98471ebd5834f35ea8bba0281d3c03c2")!
    static let policy = CompactionPolicy(snapshotEvery: 5)

    /// One container shared by every device, each with its own cache.
    struct Shared {
        let devices: Devices
        var folder: String { devices.root + "/shared/.ubiquity-stores/grocery" }

        init() throws {
            devices = try Devices()
            try FS.mkdir(devices.root + "/shared")
        }

        func open(_ device: String, policy: CompactionPolicy = CompactionTests.policy) async throws -> DeviceStore {
            try await DeviceStore.open(schema: Devices.schema, device: DeviceID(device)!, container: try Directory.open(devices.root + "/shared"),
                                       store: "grocery", databasePath: devices.database(device), compaction: policy)
        }

        func segments(of device: String) throws -> [String] {
            guard access(folder + "/logs/" + device, F_OK) == 0 else { return [] }
            return try FS.names(folder + "/logs/" + device).sorted()
        }

        func snapshots(of device: String) throws -> [String] {
            guard access(folder + "/snapshots/" + device, F_OK) == 0 else { return [] }
            return try FS.names(folder + "/snapshots/" + device).sorted()
        }
    }

    /// `state` with every tombstone shrunk to its floor: what two devices' states are compared by
    /// when either may have reached a quiet point (docs/stores.md, "Tombstones shrink to floors").
    static func floored(_ state: StoreState) -> StoreState {
        var state = state
        _ = state.floorDeletedRows()
        return state
    }

    static func item(_ id: RowID, _ name: String) -> StoreOperation { .insert(table: "items", id: id, values: ["name": .string(name)]) }
    static func rename(_ id: RowID, _ name: String) -> StoreOperation { .update(table: "items", id: id, values: ["name": .string(name)]) }

    /// A and B write and import each other; each one's snapshot at its segment 5 lets it remove
    /// its segments, first only those the other has acknowledged, then all five; C, created
    /// after, starts from the two snapshots and holds the same rows, tombstones and pairs.
    @Test func compactionRemovesAcknowledgedSegmentsAndALateDeviceConvergesFromTheSnapshots() async throws {
        let shared = try Shared()
        let a = try await shared.open("A"), b = try await shared.open("B")
        _ = try await a.commit([Self.item(Self.carrots, "carrots"), .insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                                .relate(relationship: "tags", from: Self.carrots, to: Self.mall)])
        _ = try await b.importAvailable()
        _ = try await b.commit([Self.item(Self.bread, "bread")])
        _ = try await a.importAvailable()
        // A's segments 2 to 5; at 5 it writes its snapshot and removes what B has acknowledged (1).
        _ = try await a.commit([Self.rename(Self.carrots, "organic carrots")])
        _ = try await a.commit([Self.item(Self.milk, "milk")])
        _ = try await a.commit([.delete(table: "items", id: Self.milk)])           // a tombstone in the snapshot
        _ = try await a.commit([.update(table: "items", id: Self.carrots, values: ["quantity": .integer(3)])])
        #expect(try shared.snapshots(of: "A") == ["5"])
        #expect(try shared.segments(of: "A") == ["2", "3", "4", "5"], "segments B has not acknowledged are kept")
        #expect(try await a.compactionStatus().waitingFor == [DeviceID("B")!])
        // B imports them and says so; A's next pass removes the rest.
        #expect(try await b.importAvailable().count == 4)
        _ = try await a.importAvailable()
        #expect(try shared.segments(of: "A").isEmpty)
        #expect(try await a.compactionStatus().waitingFor.isEmpty)
        // B's segments 2 to 5, the same way.
        _ = try await b.commit([Self.rename(Self.bread, "rye bread")])
        _ = try await b.commit([.relate(relationship: "tags", from: Self.bread, to: Self.mall)])
        _ = try await b.commit([.update(table: "items", id: Self.bread, values: ["note": .string("sliced")])])
        _ = try await b.commit([.unrelate(relationship: "tags", from: Self.carrots, to: Self.mall)])
        #expect(try shared.snapshots(of: "B") == ["5"])
        #expect(try shared.segments(of: "B") == ["2", "3", "4", "5"])
        #expect(try await a.importAvailable().count == 4)
        _ = try await b.importAvailable()
        #expect(try shared.segments(of: "B").isEmpty)
        #expect(try shared.segments(of: "A").isEmpty)

        // C comes late: no segment of A or B is left, only their snapshots.
        let c = try await shared.open("C")
        // The same state, up to tombstones shrunk to floors at a quiet point (here or there).
        let expected = Self.floored(try await a.currentState())
        #expect(Self.floored(try await b.currentState()) == expected)
        #expect(Self.floored(try await c.currentState()) == expected)
        #expect(try await c.fetch("items") == a.fetch("items"))
        #expect(try await c.fetch("items").map(\.id) == [Self.bread, Self.carrots])
        #expect(try await c.related("tags", to: Self.mall) == [Self.bread])
        #expect(try await c.cacheCount("ubiq_rows") == 4)                          // milk's tombstone too
        #expect(c.syncStates.filter { $0.device != DeviceID("C")! }.map(\.imported) == [5, 5])
        #expect(c.syncStates.allSatisfy { $0.condition == .current })
        #expect(c.snapshotProblems.isEmpty)
        // C writes; A and B import it: all three go on together.
        _ = try await c.commit([Self.rename(Self.carrots, "carottes")])
        _ = try await a.importAvailable()
        _ = try await b.importAvailable()
        let after = Self.floored(try await c.currentState())
        #expect(Self.floored(try await a.currentState()) == after)
        #expect(Self.floored(try await b.currentState()) == after)
    }

    /// Syncthing replaces a file by removing the old one, then renaming the newer one in: a
    /// compaction that looks in between still counts what that acknowledgement said, rather than
    /// waiting for a device that had acknowledged everything.
    @Test func anAcknowledgementBeingReplacedStillCounts() async throws {
        let shared = try Shared()
        let a = try await shared.open("A"), b = try await shared.open("B")
        _ = try await b.commit([Self.item(Self.bread, "bread")])                 // B is known by its log too
        for index in 1...5 { _ = try await a.commit([Self.item(RowID(high: 0, low: UInt64(index)), "item \(index)")]) }
        #expect(try shared.segments(of: "A") == ["1", "2", "3", "4", "5"], "B has acknowledged none")
        #expect(try await b.importAvailable().count == 5)
        #expect(try await a.compactionStatus().waitingFor.isEmpty, "A read B's acknowledgement of its 5")
        // B's acknowledgement is being replaced: the old one is gone, the new one not there yet.
        let acknowledgement = shared.folder + "/acks/B"
        #expect(Glibc.rename(acknowledgement, shared.folder + "/acks/.syncthing.B.tmp") == 0)
        #expect(try await a.compactionStatus().waitingFor.isEmpty)
        _ = try await a.importAvailable()
        #expect(try shared.segments(of: "A").isEmpty, "what B acknowledged is removed")
        // Renamed in unreadable, it still counts too.
        try FS.write(acknowledgement, "{half")
        #expect(try await a.compactionStatus().waitingFor.isEmpty)
        #expect(try await a.knownDevices().keys.contains(DeviceID("B")!))
    }

    /// A device whose cache is deleted after its first segments were compacted starts from its
    /// own snapshot plus its later segments, and numbers its next segment after them.
    @Test func aLostCacheStartsFromTheOwnSnapshotAndTheLaterSegments() async throws {
        let shared = try Shared()
        var a: DeviceStore? = try await shared.open("A")
        for index in 1...7 {
            _ = try await a!.commit([Self.item(RowID(high: 0, low: UInt64(index)), "item \(index)")])
        }
        #expect(try shared.segments(of: "A") == ["6", "7"])        // alone: 1 to 5 go with the snapshot
        let expected = try await a!.currentState()
        a = nil
        for suffix in ["", "-wal", "-shm"] { _ = unlink(shared.devices.database("A") + suffix) }
        // A snapshot write cut short left its temporary file: the next open removes it, and only it.
        try FS.write(shared.folder + "/snapshots/A/.10.0123456789abcdef.writing", "half a snapshot")
        try FS.write(shared.folder + "/snapshots/A/notes", "not ours to remove")
        let reopened = try await shared.open("A")
        #expect(try shared.snapshots(of: "A") == ["5", "notes"])
        #expect(try await reopened.currentState() == expected)
        #expect(try await reopened.fetch("items").count == 7)
        #expect(try await reopened.commit([Self.item(Self.bread, "bread")])?.sequence == 8)
    }

    /// Hostile or damaged snapshots — truncated, a flipped bit, oversized, a link — are reported
    /// and skipped: never a crash, and the device whose segments they stood for waits, saying
    /// why, while the others go on; a good snapshot in place of the bad one is used next time.
    @Test(arguments: ["truncated", "bitflip", "oversized", "symlink"])
    func aHostileSnapshotIsReportedAndSkipped(kind: String) async throws {
        let shared = try Shared()
        let a = try await shared.open("A", policy: CompactionPolicy(snapshotEvery: 2))
        let b = try await shared.open("B", policy: CompactionPolicy(snapshotEvery: 0))
        _ = try await a.commit([Self.item(Self.carrots, "carrots")])
        _ = try await a.commit([Self.item(Self.milk, "milk")])                   // snapshot 2, alone: 1 and 2 removed
        _ = try await b.commit([Self.item(Self.bread, "bread")])
        #expect(try shared.segments(of: "A").isEmpty)
        let path = shared.folder + "/snapshots/A/2"
        let good = try Devices.read(path)
        try FS.unlink(path)
        switch kind {
        case "truncated": try Devices.write(path, Array(good.prefix(good.count - 7)))
        case "bitflip":
            var bytes = good
            bytes[bytes.count / 2] ^= 0x10
            try Devices.write(path, bytes)
        case "oversized": try Devices.write(path, good + [UInt8](repeating: 0, count: 600))
        default:
            try Devices.write(shared.devices.root + "/elsewhere", good)
            try FS.symlink(shared.devices.root + "/elsewhere", path)
        }
        let policy = CompactionPolicy(snapshotEvery: 5, snapshotLimits: SnapshotLimits(maxSnapshotBytes: good.count + 100))
        var c: DeviceStore? = try await shared.open("C", policy: policy)
        #expect(try await c!.fetch("items").map(\.id) == [Self.bread])             // B's row: B goes on
        let problems = c!.snapshotProblems
        #expect(problems.count == 1 && problems.first?.device == DeviceID("A")! && problems.first?.sequence == 2)
        let stateOfA = c!.syncStates.first { $0.device == DeviceID("A")! }
        guard case .degraded(let sequence, _, let reason)? = stateOfA?.condition else {
            Issue.record("A's import is not degraded: \(String(describing: stateOfA))")
            return
        }
        #expect(sequence == 1 && reason.contains("snapshot 2 of device A"))
        // Importing again is harmless and reports the same; the good snapshot is used at the next open.
        _ = try await c!.importAvailable()
        #expect(c!.snapshotProblems.count == 1)
        c = nil
        try FS.unlink(path)
        try Devices.write(path, good)
        let again = try await shared.open("C", policy: policy)
        #expect(try await again.fetch("items").map(\.id) == [Self.bread, Self.carrots, Self.milk])
        #expect(again.syncStates.allSatisfy { $0.condition == .current })
    }

    /// A device that was away edits a row another device deleted meanwhile; a third device that
    /// started from the deleting device's snapshot (the tombstone in it) gets the edit late: the
    /// row comes back with the edit, reported as a contest, on every device — and the deleting
    /// device keeps the segment the away device has not acknowledged.
    @Test func aLateEditOfARowDeletedMeanwhileComesBackAsAnEdit() async throws {
        let shared = try Shared()
        let policy = CompactionPolicy(snapshotEvery: 2)
        let a = try await shared.open("A", policy: policy), away = try await shared.open("away", policy: policy)
        _ = try await a.commit([Self.item(Self.carrots, "carrots")])
        _ = try await away.importAvailable()
        _ = try await a.commit([.delete(table: "items", id: Self.carrots)])       // segment 2: the snapshot, the tombstone
        #expect(try shared.snapshots(of: "A") == ["2"])
        #expect(try shared.segments(of: "A") == ["2"], "the away device has acknowledged 1, not 2")
        let late = try await shared.open("late", policy: policy)
        #expect(try await late.fetch("items").isEmpty)
        #expect(try await late.currentState().deletedRowIDs("items") == [Self.carrots])
        // The away device, not having seen the delete, edits carrots.
        _ = try await away.commit([.update(table: "items", id: Self.carrots, values: ["quantity": .integer(5)])])
        let imported = try await late.importAvailable().filter { $0.device == DeviceID("away")! }
        #expect(imported.first?.result.inserted == [RowRef(table: "items", id: Self.carrots)])
        #expect(imported.first?.result.contests.first?.kept == true)
        _ = try await a.importAvailable()
        _ = try await away.importAvailable()
        let expected = try await late.currentState()
        #expect(try await a.currentState() == expected)
        #expect(try await away.currentState() == expected)
        #expect(try await late.fetch("items") == [StoreRow(id: Self.carrots, values: ["name": .string("carrots"), "quantity": .integer(5)])])
    }
}
