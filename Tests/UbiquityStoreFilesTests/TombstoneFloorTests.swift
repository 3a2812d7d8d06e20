import Glibc
import Synchronization
import Testing
import UbiquityStore
@testable import UbiquityStoreFiles
import UbiquitySystem
import UbiquityTesting

/// Tombstones shrink to generation floors at a quiet point, and a late device's edit of a row
/// deleted meanwhile brings the whole row back on every device through its repair
/// (docs/stores.md, "Tombstones shrink to floors"). Three devices, each with its own container;
/// the test copies logs and acknowledgement files between them as a sync engine would, so the
/// late device's files arrive only when the test says.
@Suite("Tombstones: floors at a quiet point, repairs from a late device")
struct TombstoneFloorTests {
    static let carrots = RowID("000000000000000000000000000000c1")!
    static let bread = RowID("000000000000000000000000000000b2")!

    /// Copies `writer`'s segments, snapshots and acknowledgement file from `from`'s container into `to`'s.
    static func sync(_ devices: Devices, _ writer: String, from: String, to: String) throws {
        try devices.sync(writer, from: from, to: to)
        let snapshots = try devices.container(from) + "/.ubiquity-stores/grocery/snapshots/" + writer
        if access(snapshots, F_OK) == 0 {
            let target = try devices.container(to) + "/.ubiquity-stores/grocery/snapshots/" + writer
            try FS.mkdirs(target)
            for name in try FS.names(snapshots) where StoreLayout.sequence(ofSegmentNamed: name) != nil && access(target + "/" + name, F_OK) != 0 {
                try Devices.copy(snapshots + "/" + name, target + "/" + name)
            }
        }
        let ack = try devices.container(from) + "/.ubiquity-stores/grocery/acks/" + writer
        guard access(ack, F_OK) == 0 else { return }
        let target = try devices.container(to) + "/.ubiquity-stores/grocery/acks"
        try FS.mkdirs(target)
        try Devices.write(target + "/.incoming", try Devices.read(ack))
        try FS.rename(target + "/.incoming", target + "/" + writer)
    }

    /// Every device's files to every other device.
    static func syncAll(_ devices: Devices, _ names: [String]) throws {
        for writer in names { for to in names where to != writer { try sync(devices, writer, from: writer, to: to) } }
    }

    /// The bytes of the registers of deleted rows, and of a snapshot of the whole state.
    static func sizes(_ state: StoreState, _ device: String) throws -> (tombstones: Int, count: Int, snapshot: Int) {
        var bytes = 0, count = 0
        for (_, row) in state.rowRegisters where !row.isAlive(state.schema.deletes) {
            bytes += StoreRegisters.encode(row).count
            count += 1
        }
        let me = DeviceID(device)!
        let snapshot = try Snapshot(device: me, sequence: 1, clock: HLC(milliseconds: 1, device: me), watermarks: [me: 1], state: state)
        return (bytes, count, snapshot.encoded().count)
    }

    static func item(_ n: Int) -> RowID { RowID(high: 0xF000, low: UInt64(n)) }

    /// Opens `name`'s store with floors as soon as a quiet point allows (no day's wait: the wall
    /// clock here stands still).
    static func open(_ devices: Devices, _ name: String) async throws -> DeviceStore {
        try await DeviceStore.open(schema: Devices.schema, device: DeviceID(name)!, container: try Directory.open(try devices.container(name)),
                                   store: "grocery", databasePath: devices.database(name), compaction: CompactionPolicy(floorAfterMilliseconds: 0),
                                   wall: { 1_767_225_600_000 })
    }

    /// With one-letter device ids, and with 32-character ones (every reading in a register
    /// spells its device out, so the ids' length matters for both sizes).
    @Test(arguments: [1, 32])
    func deletedRowsShrinkAtAQuietPointAndALateEditBringsTheWholeRowBackEverywhere(idLength: Int) async throws {
        let devices = try Devices()
        func id(_ letter: String) -> String { letter + String(repeating: "0", count: idLength - 1) }
        let (nameA, nameB, nameC) = (id("A"), id("B"), id("C"))
        let a = try await Self.open(devices, nameA), b = try await Self.open(devices, nameB)
        // A inserts carrots and 100 Grocery-sized items; B and the late device C import them.
        var inserts: [StoreOperation] = [.insert(table: "items", id: Self.carrots, values: ["name": .string("carrots"), "quantity": .integer(1)])]
        for n in 1...100 {
            inserts.append(.insert(table: "items", id: Self.item(n), values: [
                "name": .string("item number \(n)"), "quantity": .integer(Int64(n)), "note": .string("from the market"),
                "created": .date(1_767_225_600_000 + Int64(n)), "done": .bool(false)]))
        }
        _ = try await a.commit(inserts)
        try Self.sync(devices, nameA, from: nameA, to: nameB)
        try Self.sync(devices, nameA, from: nameA, to: nameC)
        _ = try await b.importAvailable()
        let c = try await Self.open(devices, nameC)                    // imports A's segment 1 at open
        #expect(try await c.fetch("items").count == 101)
        // C edits carrots, and goes quiet: its files stay on C.
        _ = try await c.commit([.update(table: "items", id: Self.carrots, values: ["quantity": .integer(5)])])
        // B notes carrots are organic; A imports that, then deletes carrots and the 100 items.
        _ = try await b.commit([.update(table: "items", id: Self.carrots, values: ["note": .string("organic")])])
        try Self.sync(devices, nameB, from: nameB, to: nameA)
        _ = try await a.importAvailable()
        _ = try await a.commit([.delete(table: "items", id: Self.carrots)] + (1...100).map { .delete(table: "items", id: Self.item($0)) })
        let whole = try Self.sizes(try await a.currentState(), nameA)
        #expect(whole.count == 101)

        // A and B exchange logs and acknowledgements until each is at a quiet point (C is not known to them).
        for _ in 0 ..< 3 {
            try Self.syncAll(devices, [nameA, nameB])
            _ = try await a.importAvailable()
            _ = try await b.importAvailable()
        }
        #expect(a.tombstoneCounts.floored == 101 && b.tombstoneCounts.floored == 101)
        let floored = try Self.sizes(try await a.currentState(), nameA)
        #expect(floored.count == 101)
        #expect(floored.tombstones < whole.tombstones / 2, "\(whole.tombstones) bytes of tombstones became \(floored.tombstones)")
        #expect(try await a.currentState().rowState(RowRef(table: "items", id: Self.carrots))?.columns.isEmpty == true)
        // The cache holds the floors too: a reopened store reads them back.
        #expect(try await a.cacheCount("ubiq_rows") == 101)
        print("tombstones (device ids of \(idLength) characters): \(Double(whole.tombstones) / 101) bytes a deleted row before, \(Double(floored.tombstones) / 101) after; a snapshot of the state \(whole.snapshot) bytes before, \(floored.snapshot) after")

        // C's files arrive, and A's and B's reach C.
        try Self.syncAll(devices, [nameA, nameB, nameC])
        // A imports C's edit before C's repair exists: carrots is back with only what the edit wrote
        // (the limit docs/stores.md names), and the import reports the contest.
        let early = try await a.importAvailable()
        #expect(early.flatMap(\.result.contests).map(\.kept) == [true])
        #expect(try await a.fetch("items") == [StoreRow(id: Self.carrots, values: ["quantity": .integer(5)])])
        // C imports A's log first: the delete makes carrots contested here, and C holds its
        // columns — its segment 2 repairs it; then B's note changes the columns: segment 3.
        _ = try await c.importAvailable()
        #expect(c.tombstoneCounts.repairs == 2)
        let logsOfC = try devices.logs(nameC, of: nameC)
        #expect(try FS.names(logsOfC).compactMap(StoreLayout.sequence(ofSegmentNamed:)).sorted() == [1, 2, 3])
        for sequence in [2, 3] {
            let bytes = try Devices.read(logsOfC + "/\(sequence)")
            #expect(bytes[4] == 2, "a repair segment is in format 2")
            #expect(try Segment(decoding: bytes).repairs.map(\.row) == [Self.carrots])
        }
        try Self.syncAll(devices, [nameA, nameB, nameC])
        _ = try await a.importAvailable()
        _ = try await b.importAvailable()
        let expected = [StoreRow(id: Self.carrots, values: ["name": .string("carrots"), "quantity": .integer(5), "note": .string("organic")])]
        #expect(try await c.fetch("items") == expected)
        #expect(try await a.fetch("items") == expected, "A had shrunk carrots to a floor: the repair brings it back whole")
        #expect(try await b.fetch("items") == expected)
        // The 100 items stay deleted, as floors.
        #expect(try await a.currentState().deletedRowIDs("items").count == 100)
    }

    /// The late device meets A's log compacted away (it was not known when B acknowledged it) and
    /// joins A's snapshot, written after A shrank carrots to a floor: the delete reaches it in the
    /// snapshot, carrots is back there, and its repair — written for a join as for an import —
    /// brings carrots back whole on A and B.
    @Test func aLateDeviceThatJoinsAFlooredSnapshotRepairsTheRowItBringsBack() async throws {
        let devices = try Devices()
        func open(_ name: String, every: UInt64) async throws -> DeviceStore {
            try await DeviceStore.open(schema: Devices.schema, device: DeviceID(name)!, container: try Directory.open(try devices.container(name)),
                                       store: "grocery", databasePath: devices.database(name), compaction: CompactionPolicy(snapshotEvery: every, floorAfterMilliseconds: 0),
                                       wall: { 1_767_225_600_000 })
        }
        let a = try await open("A", every: 2), b = try await open("B", every: 0)
        _ = try await a.commit([.insert(table: "items", id: Self.carrots, values: ["name": .string("carrots"), "quantity": .integer(1)])])
        try Self.sync(devices, "A", from: "A", to: "B")
        try Self.sync(devices, "A", from: "A", to: "C")
        let c = try await open("C", every: 0)
        _ = try await c.commit([.update(table: "items", id: Self.carrots, values: ["quantity": .integer(5)])])
        _ = try await a.commit([.delete(table: "items", id: Self.carrots)])
        for _ in 0 ..< 3 {
            try Self.syncAll(devices, ["A", "B"])
            _ = try await a.importAvailable()
            _ = try await b.importAvailable()
        }
        #expect(a.tombstoneCounts.floored == 1)
        // Two more of A's segments: its snapshot 4 holds carrots' floor; B acknowledges, A compacts.
        _ = try await a.commit([.insert(table: "items", id: Self.bread, values: ["name": .string("bread")])])
        _ = try await a.commit([.update(table: "items", id: Self.bread, values: ["quantity": .integer(2)])])
        for _ in 0 ..< 3 {
            try Self.syncAll(devices, ["A", "B"])
            _ = try await a.importAvailable()
            _ = try await b.importAvailable()
        }
        let logsOfA = try devices.logs("A", of: "A")
        #expect(try FS.names(logsOfA).compactMap(StoreLayout.sequence(ofSegmentNamed:)).isEmpty, "A's segments are compacted")
        // C comes back: A's segment 2 is gone, snapshot 4 is there.
        try Self.syncAll(devices, ["A", "B", "C"])
        _ = try await c.importAvailable()
        #expect(c.tombstoneCounts.repairs == 1)
        try Self.syncAll(devices, ["A", "B", "C"])
        _ = try await a.importAvailable()
        _ = try await b.importAvailable()
        let expected = [StoreRow(id: Self.bread, values: ["name": .string("bread"), "quantity": .integer(2)]),
                        StoreRow(id: Self.carrots, values: ["name": .string("carrots"), "quantity": .integer(5)])]
        #expect(try await c.fetch("items") == expected)
        #expect(try await a.fetch("items") == expected)
        #expect(try await b.fetch("items") == expected)
    }

    /// A device alone is at a quiet point at once, but a delete shrinks its row only once it is a
    /// day old (``CompactionPolicy/floorAfterMilliseconds``): a device that imported the row and is
    /// not known yet has that long to show up before its edit would come back partial.
    @Test func aDeleteShrinksItsRowOnlyOnceItIsADayOld() async throws {
        let devices = try Devices()
        let clock = Mutex<Int64>(1_767_225_600_000)
        let a = try await DeviceStore.open(schema: Devices.schema, device: DeviceID("A")!, container: try Directory.open(try devices.container("A")),
                                           store: "grocery", databasePath: devices.database("A"), wall: { clock.withLock { $0 } })
        _ = try await a.commit([.insert(table: "items", id: Self.carrots, values: ["name": .string("carrots")])])
        _ = try await a.commit([.delete(table: "items", id: Self.carrots)])
        _ = try await a.importAvailable()
        #expect(a.tombstoneCounts.floored == 0, "a delete of a moment ago waits")
        clock.withLock { $0 += 86_400_000 - 1 }
        _ = try await a.importAvailable()
        #expect(a.tombstoneCounts.floored == 0)
        clock.withLock { $0 += 1 }
        _ = try await a.importAvailable()
        #expect(a.tombstoneCounts.floored == 0, "a pass reads every register: at most one a minute")
        clock.withLock { $0 += DeviceStore.floorPassSpacingMilliseconds }
        _ = try await a.importAvailable()
        #expect(a.tombstoneCounts.floored == 1, "a day old, at the next import pass a minute after the last, it shrinks")
        #expect(try await a.currentState().rowState(RowRef(table: "items", id: Self.carrots))?.columns.isEmpty == true)
    }

    /// A tag (unique by meaning) deleted, shrunk to a floor, and created again goes on at the next
    /// generation: the floor keeps the generation, so every device agrees on it.
    @Test func aTagCreatedAgainAfterItsFloorGoesOnAtTheNextGeneration() async throws {
        let devices = try Devices()
        let a = try await Self.open(devices, "A"), b = try await Self.open(devices, "B")
        _ = try await a.commit([.insert(table: "tags", id: nil, values: ["name": .string("mall")])])
        try Self.syncAll(devices, ["A", "B"])
        _ = try await b.importAvailable()
        let mall = try await b.fetch("tags")[0].id
        _ = try await b.commit([.delete(table: "tags", id: mall)])
        for _ in 0 ..< 3 {
            try Self.syncAll(devices, ["A", "B"])
            _ = try await a.importAvailable()
            _ = try await b.importAvailable()
        }
        #expect(a.tombstoneCounts.floored == 1)
        let floor = try await a.currentState().rowState(RowRef(table: "tags", id: mall))
        #expect(floor?.generation == 1 && floor?.columns.isEmpty == true)
        _ = try await a.commit([.insert(table: "tags", id: nil, values: ["name": .string("Mall")])])
        try Self.syncAll(devices, ["A", "B"])
        _ = try await b.importAvailable()
        #expect(try await b.currentState().rowState(RowRef(table: "tags", id: mall))?.generation == 2)
        #expect(try await b.fetch("tags") == [StoreRow(id: mall, values: ["name": .string("Mall")])])
    }
}
