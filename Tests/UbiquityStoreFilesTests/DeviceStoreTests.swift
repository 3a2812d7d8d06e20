import Glibc
import Synchronization
import Testing
import UbiquityStore
@testable import UbiquityStoreFiles
import UbiquitySystem
import UbiquityTesting

/// A store on disk with real files and real SQLite: local writes reach the segment file and the
/// cache; two devices' logs exchanged as Syncthing would converge to the pure engine's state;
/// imports happen once; the cache rebuilds from the logs.
@Suite("Store on disk")
struct DeviceStoreTests {
    static let carrots = RowID("000000000000000000000000000000c1")!
    static let bread = RowID("000000000000000000000000000000b2")!
    static let mall = RowID("98471ebd5834f35ea8bba0281d3c03c2")!

    @Test func aLocalWriteIsASegmentOnDiskAndRowsInSQLite() async throws {
        let devices = try Devices()
        let laptop = try await devices.open("laptop")
        let made = try #require(try await laptop.commit([
            .insert(table: "items", id: Self.carrots, values: ["name": .string("carrots"), "quantity": .integer(2)]),
            .insert(table: "tags", id: nil, values: ["name": .string("mall")]),
            .relate(relationship: "tags", from: Self.carrots, to: Self.mall),
        ]))
        #expect(made.sequence == 1)
        #expect(made.result.inserted == [RowRef(table: "items", id: Self.carrots), RowRef(table: "tags", id: Self.mall)])
        // The file: this device's segment 1, whole and checked, and nothing else in the folder
        // (the temporary name is gone).
        #expect(try FS.names(try devices.logs("laptop", of: "laptop")) == ["1"])
        let segment = try Segment(decoding: try Devices.read(try devices.logs("laptop", of: "laptop") + "/1"))
        #expect(segment.device == DeviceID("laptop")! && segment.sequence == 1 && segment.changes.count == 3)
        // The cache: typed rows, the pair, the registers, the watermark, the change log.
        #expect(try await laptop.fetch("items") == [StoreRow(id: Self.carrots, values: ["name": .string("carrots"), "quantity": .integer(2)])])
        #expect(try await laptop.related("tags", from: Self.carrots) == [Self.mall])
        #expect(try await laptop.related("tags", to: Self.mall) == [Self.carrots])
        #expect(try await laptop.cacheCount("ubiq_rows") == 2)
        #expect(try await laptop.cacheCount("ubiq_changes") == 1)
        #expect(laptop.syncStates == [DeviceSyncState(device: DeviceID("laptop")!, imported: 1, condition: .current)])
        // Nothing to change writes nothing.
        #expect(try await laptop.commit([.relate(relationship: "tags", from: Self.carrots, to: Self.mall)]) == nil)
        #expect(try FS.names(try devices.logs("laptop", of: "laptop")) == ["1"])
        // The next write is segment 2; a deletion takes the row and its pair out of the typed tables.
        #expect(try await laptop.commit([.delete(table: "items", id: Self.carrots)])?.sequence == 2)
        #expect(try await laptop.fetch("items").isEmpty)
        #expect(try await laptop.related("tags", to: Self.mall).isEmpty)
        #expect(try await laptop.cacheCount("ubiq_rows") == 2)          // the tombstone stays
    }

    /// Random transactions on two devices, their logs exchanged in several rounds, duplicates
    /// and all: both caches hold the state the pure engine makes of all the segments.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func twoDevicesConvergeToThePureEnginesState(seed: UInt64) async throws {
        let devices = try Devices()
        let names = ["laptop", "phone"]
        var stores = [try await devices.open("laptop"), try await devices.open("phone")]
        var random = SplitMix64(seed: seed)
        var rows: [RowID] = []
        let tagNames = ["mall", "grocery store", "green grocer"]
        for round in 0..<6 {
            for (index, store) in stores.enumerated() {
                for _ in 0..<4 {
                    let current = try await store.currentState()
                    let known = current.rowIDs("items")
                    var operations: [StoreOperation] = []
                    switch random.next() % 6 {
                    case 0, 1:
                        let id = RowID.random(using: &random)
                        rows.append(id)
                        operations = [.insert(table: "items", id: id, values: ["name": .string("item \(rows.count)"), "quantity": .integer(Int64(random.next() % 9))])]
                    case 2 where !known.isEmpty:
                        operations = [.update(table: "items", id: known[Int(random.next() % UInt64(known.count))],
                                              values: ["name": .string("renamed \(round) on \(names[index])"), "note": .string("n\(random.next() % 3)")])]
                    case 3 where !known.isEmpty:
                        operations = [.delete(table: "items", id: known[Int(random.next() % UInt64(known.count))])]
                    case 4 where !known.isEmpty:
                        let name = tagNames[Int(random.next() % 3)]
                        let item = known[Int(random.next() % UInt64(known.count))]
                        var tag = current.rowIDs("tags").first { current.row(RowRef(table: "tags", id: $0))?["name"] == .string(name) }
                        if tag == nil {
                            tag = try await store.commit([.insert(table: "tags", id: nil, values: ["name": .string(name)])])?.result.inserted.first?.id
                        }
                        guard let tag else { Issue.record("the tag \(name) was not made"); return }
                        operations = [.relate(relationship: "tags", from: item, to: tag)]
                    default:
                        let tags = current.rowIDs("tags")
                        if let item = known.first, let tag = tags.first { operations = [.unrelate(relationship: "tags", from: item, to: tag)] }
                    }
                    if !operations.isEmpty { _ = try await store.commit(operations) }
                }
            }
            // Exchange, sometimes only one way this round.
            if round % 2 == 0 || random.next() % 2 == 0 { try devices.sync("laptop", from: "laptop", to: "phone") }
            try devices.sync("phone", from: "phone", to: "laptop")
            for store in stores { _ = try await store.importAvailable() }
        }
        // Until nothing new: an import that brings a row back may write a repair (its own segment).
        for _ in 0 ..< 3 {
            try devices.sync("laptop", from: "laptop", to: "phone")
            try devices.sync("phone", from: "phone", to: "laptop")
            for store in stores { _ = try await store.importAvailable() }
        }

        // The pure engine, fed every segment twice in reverse order.
        var pure = StoreState(schema: Devices.schema)
        let all = try devices.segments(in: "laptop")
        #expect(Set(all) == Set(try devices.segments(in: "phone")))
        for segment in (all + all).reversed() { _ = try pure.apply(segment) }
        for (index, store) in stores.enumerated() {
            // Up to floors: a device alone is at a quiet point, and shrinks what it deleted.
            #expect(CompactionTests.floored(try await store.currentState()) == CompactionTests.floored(pure), "\(names[index])'s merged state")
            #expect(try await store.fetch("items") == pureRows(pure, "items"), "\(names[index])'s typed items")
            #expect(try await store.fetch("tags") == pureRows(pure, "tags"), "\(names[index])'s typed tags")
            for item in pure.rowIDs("items") {
                #expect(try await store.related("tags", from: item) == pure.related("tags", from: item))
            }
            // Importing again finds nothing new.
            #expect(try await store.importAvailable().isEmpty)
        }
        // Reopened on its cache alone (every register decoded), the state is the same.
        stores = []
        for name in names {
            #expect(CompactionTests.floored(try await devices.open(name).currentState()) == CompactionTests.floored(pure), "\(name) reopened")
        }
    }

    /// Each segment is imported once: its watermark moves in the transaction that applies it,
    /// so the change log has one row per segment, however often imports run.
    @Test func aSegmentIsImportedOnceAndItsChangesLoggedOnce() async throws {
        let devices = try Devices()
        let phone = try await devices.open("phone")
        for n in 0..<5 {
            _ = try await phone.commit([.insert(table: "items", id: RowID(high: 1, low: UInt64(n)), values: ["name": .string("p\(n)")])])
        }
        try devices.sync("phone", from: "phone", to: "laptop")
        let laptop = try await devices.open("laptop")       // opening imports what is there
        #expect(laptop.syncStates.first { $0.device == DeviceID("phone")! }?.imported == 5)
        #expect(try await laptop.importAvailable().isEmpty)
        #expect(try await laptop.cacheCount("ubiq_changes") == 5)
        #expect(try await laptop.fetch("items").count == 5)
        _ = try await phone.commit([.update(table: "items", id: RowID(high: 1, low: 0), values: ["name": .string("renamed")])])
        try devices.sync("phone", from: "phone", to: "laptop")
        let imported = try await laptop.importAvailable()
        #expect(imported.map(\.sequence) == [6])
        #expect(imported.first?.result.updated == [RowRef(table: "items", id: RowID(high: 1, low: 0)): ["name"]])
        #expect(try await laptop.cacheCount("ubiq_changes") == 6)
        // Acknowledgements: how far the laptop imported each device.
        let acks = String(decoding: try Devices.read(try devices.container("laptop") + "/.ubiquity-stores/grocery/acks/laptop"), as: UTF8.self)
        #expect(acks == "{\"phone\":6}\n")
    }

    /// An import pass that fails after committing imports (here: its acknowledgement cannot be
    /// written, the acks folder being a file) returns them all the same, for their subscribers to
    /// hear of, and says why it stopped; the next pass that can writes the acknowledgement.
    @Test func aPassThatFailsAfterImportsReturnsThem() async throws {
        let devices = try Devices()
        let phone = try await devices.open("phone")
        _ = try await phone.commit([.insert(table: "items", id: RowID(high: 1, low: 1), values: ["name": .string("bread")])])
        let laptop = try await devices.open("laptop")
        let acks = try devices.container("laptop") + "/.ubiquity-stores/grocery/acks"
        try FS.removeTree(acks)
        try Devices.write(acks, Array("not a folder".utf8))
        try devices.sync("phone", from: "phone", to: "laptop")
        let imported = try await laptop.importAvailable()
        #expect(imported.map(\.sequence) == [1], "the committed import is returned")
        #expect(laptop.importFailure?.contains("stopped after 1 imports") == true, "\(String(describing: laptop.importFailure))")
        #expect(try await laptop.fetch("items").count == 1)
        // Nothing new: a pass that fails before any import throws.
        await #expect(throws: (any Error).self) { try await laptop.importAvailable() }
        #expect(unlink(acks) == 0)
        try FS.mkdir(acks)
        #expect(try await laptop.importAvailable().isEmpty)
        #expect(laptop.importFailure == nil)
        #expect(String(decoding: try Devices.read(acks + "/laptop"), as: UTF8.self) == "{\"phone\":1}\n")
    }

    /// The cache is a cache: deleted, it is rebuilt from the segments, this device's own
    /// included, and the next local write continues the sequence.
    @Test func deletingTheDatabaseRebuildsItFromTheLogs() async throws {
        let devices = try Devices()
        let phone = try await devices.open("phone")
        _ = try await phone.commit([.insert(table: "items", id: Self.bread, values: ["name": .string("bread")])])
        try devices.sync("phone", from: "phone", to: "laptop")
        var laptop: DeviceStore? = try await devices.open("laptop")
        _ = try await laptop!.commit([.insert(table: "items", id: Self.carrots, values: ["name": .string("carrots")]),
                                      .insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                                      .relate(relationship: "tags", from: Self.carrots, to: Self.mall)])
        _ = try await laptop!.commit([.update(table: "items", id: Self.bread, values: ["quantity": .integer(3)])])
        let before = try await laptop!.currentState()
        let fetched = try await laptop!.fetch("items")
        laptop = nil
        for suffix in ["", "-wal", "-shm"] { unlink(devices.database("laptop") + suffix) }

        let rebuilt = try await devices.open("laptop")
        #expect(try await rebuilt.currentState() == before)
        #expect(try await rebuilt.fetch("items") == fetched)
        #expect(try await rebuilt.related("tags", from: Self.carrots) == [Self.mall])
        #expect(rebuilt.syncStates.map(\.imported) == [2, 1])            // laptop, phone
        #expect(try await rebuilt.commit([.delete(table: "items", id: Self.carrots)])?.sequence == 3)
        #expect(try FS.names(try devices.logs("laptop", of: "laptop")).sorted() == ["1", "2", "3"])
    }

    /// A cache that does not decode (damaged registers) is rebuilt, not trusted or fatal.
    @Test func aDamagedCacheIsRebuilt() async throws {
        let devices = try Devices()
        var laptop: DeviceStore? = try await devices.open("laptop")
        _ = try await laptop!.commit([.insert(table: "items", id: Self.carrots, values: ["name": .string("carrots")])])
        let before = try await laptop!.currentState()
        try laptop!.database.withLock { db in try db.execute("UPDATE ubiq_rows SET register = x'ff'") }
        laptop = nil
        let reopened = try await devices.open("laptop")
        #expect(try await reopened.currentState() == before)
    }

    /// A cache file that is not a database at all (overwritten, truncated to garbage) is made anew
    /// from the segments, its WAL files with it.
    @Test func aCacheThatIsNotADatabaseIsRebuilt() async throws {
        let devices = try Devices()
        var laptop: DeviceStore? = try await devices.open("laptop")
        _ = try await laptop!.commit([.insert(table: "items", id: Self.carrots, values: ["name": .string("carrots")])])
        let before = try await laptop!.currentState()
        laptop = nil
        let fd = open(devices.database("laptop"), O_WRONLY | O_TRUNC)
        try #require(fd >= 0)
        let garbage = [UInt8](repeating: 0x5a, count: 8192)
        #expect(garbage.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == 8192)
        close(fd)
        let reopened = try await devices.open("laptop")
        #expect(try await reopened.currentState() == before)
        #expect(try await reopened.cacheCount("t_items") == 1)
    }

    /// No wait for the disk happens on a Swift task: SQLite and fsync run on the store's own queue.
    @Test func writesAndImportsNeverWaitOnTheCooperativePool() async throws {
        let devices = try Devices()
        let recorder = WaitRecorder()
        try await System.$waitRecorder.withValue(recorder) {
            let laptop = try await devices.open("laptop")
            let phone = try await devices.open("phone")
            _ = try await phone.commit([.insert(table: "items", id: Self.bread, values: ["name": .string("bread")])])
            try devices.sync("phone", from: "phone", to: "laptop")
            _ = try await laptop.commit([.insert(table: "items", id: Self.carrots, values: ["name": .string("carrots")])])
            #expect(try await laptop.importAvailable().count == 1)
            #expect(recorder.recorded.isEmpty, "\(recorder.recorded)")
            // The recorder does see a wait made on this task.
            func syncHere(_ directory: Directory) { try? directory.sync() }
            syncHere(try Directory.open(try devices.container("laptop")))
            #expect(recorder.recorded.count == 1)
        }
    }
}
