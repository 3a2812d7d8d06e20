// store-rig — one device's store driven from the command line: the child the crash tests kill
// with SIGKILL mid-write and mid-import, and the store's measurements. A development tool, never
// installed.
//
//   store-rig write CONTAINER DATABASE DEVICE COUNT [SNAPSHOT-EVERY]
//                                                       commit COUNT one-row transactions, printing `ack N SEQUENCE` after each
//                                                       (with a snapshot every SNAPSHOT-EVERY segments, and compaction; default none)
//   store-rig import CONTAINER DATABASE DEVICE          open (importing everything present), print `imported N rows R`
//   store-rig remote CONTAINER DEVICE ROWS PER-SEGMENT  write another device's log of ROWS inserts (pure engine, no cache)
//   store-rig bench-commit DIRECTORY COUNT [PREFILL]    commit latency (insert → fsync'ed), p50 and p99, in a store
//                                                       first given PREFILL rows in one transaction (default none)
//   store-rig bench-batch DIRECTORY COUNT               one transaction of COUNT inserts (insert → fsync'ed), its time
//   store-rig bench-snapshot CONTAINER DATABASE DEVICE  after `import`: one commit, then a snapshot (time, bytes),
//                                                       then a new device starting from it (time, rows)
//
// Depends on: UbiquityStoreFiles, UbiquityStore, UbiquitySystem.
import Glibc
import UbiquityStore
import UbiquityStoreFiles
import UbiquitySystem

@main
enum StoreRig {
    /// Grocery's schema (docs/stores.md).
    static let schema = try! Schema(version: 1, tables: [
        TableSchema("items", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("quantity", .integer),
                                       ColumnSchema("note", .string), ColumnSchema("created", .date), ColumnSchema("done", .bool)]),
        TableSchema("tags", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("color", .string)], uniqueBy: ["name"]),
    ], relationships: [RelationshipSchema("tags", from: "items", to: "tags", inverse: "items")])

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            switch (arguments.first, arguments.count) {
            case ("write", 5), ("write", 6):
                try await write(container: arguments[1], database: arguments[2], device: arguments[3], count: Int(arguments[4]) ?? 0,
                                snapshotEvery: arguments.count == 6 ? UInt64(arguments[5]) ?? 0 : 0)
            case ("import", 4): try await importAll(container: arguments[1], database: arguments[2], device: arguments[3])
            case ("remote", 5): try remote(container: arguments[1], device: arguments[2], rows: Int(arguments[3]) ?? 0, perSegment: Int(arguments[4]) ?? 1)
            case ("bench-commit", 3), ("bench-commit", 4):
                try await benchCommit(directory: arguments[1], count: Int(arguments[2]) ?? 0, prefill: arguments.count == 4 ? Int(arguments[3]) ?? 0 : 0)
            case ("bench-batch", 3): try await benchBatch(directory: arguments[1], count: Int(arguments[2]) ?? 0)
            case ("bench-snapshot", 4): try await benchSnapshot(container: arguments[1], database: arguments[2], device: arguments[3])
            default:
                say("usage: store-rig write|import|remote|bench-commit|bench-batch|bench-snapshot … (see the header of StoreRig.swift)", fd: 2)
                exit(64)
            }
        } catch {
            say("store-rig: \(error)", fd: 2)
            exit(1)
        }
    }

    static func say(_ line: String, fd: Int32 = 1) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    /// The crash tests count every segment file: no snapshots, so no compaction, unless asked.
    static func open(_ container: String, _ database: String, _ device: String, snapshotEvery: UInt64 = 0) async throws -> DeviceStore {
        try await DeviceStore.open(schema: schema, device: DeviceID(device)!, container: try Directory.open(container),
                                   store: "grocery", databasePath: database, compaction: CompactionPolicy(snapshotEvery: snapshotEvery))
    }

    /// Row `n`'s id, the same in every run: the crash test checks which rows exist.
    static func rowID(_ device: String, _ n: Int) -> RowID {
        RowID(high: 0xA0A0_0000_0000_0000, low: UInt64(n))
    }

    static func write(container: String, database: String, device: String, count: Int, snapshotEvery: UInt64) async throws {
        let store = try await open(container, database, device, snapshotEvery: snapshotEvery)
        // Resumes after the rows a killed run acknowledged or committed.
        let start = try await store.cacheCount("t_items")
        for n in start..<count {
            let made = try await store.commit([.insert(table: "items", id: rowID(device, n), values: ["name": .string("item \(n)"), "quantity": .integer(Int64(n))])])
            say("ack \(n) \(made?.sequence ?? 0)")
        }
        say("done")
    }

    static func importAll(container: String, database: String, device: String) async throws {
        say("opening")
        let store = try await open(container, database, device)
        let rows = try await store.cacheCount("t_items")
        say("imported \(store.syncStates.map { "\($0.device)=\($0.imported)" }.joined(separator: ",")) rows \(rows)")
        // Ends here, as a process ends, without freeing the store's memory row by row (about
        // 0.1 s for 100,000 rows): the daemon never frees a store after an import, and the
        // measurement (Benchmarks/store/measure.sh) is of the import.
        withExtendedLifetime(store) { exit(0) }
    }

    /// Another device's log written as its segments would be: `rows` inserts, `perSegment` a segment.
    static func remote(container: String, device: String, rows: Int, perSegment: Int) throws {
        let id = DeviceID(device)!
        var replica = StoreReplica(schema: schema, device: id)
        let root = try Directory.open(container)
        let folder = try StoreFolder(container: root, store: "grocery")
        var n = 0, wall: Int64 = 1_767_225_600_000
        while n < rows {
            let batch = (n..<min(rows, n + max(1, perSegment))).map { i in
                StoreOperation.insert(table: "items", id: RowID(high: 0xB0B0_0000_0000_0000, low: UInt64(i)),
                                      values: ["name": .string("remote item \(i)"), "quantity": .integer(Int64(i)), "done": .bool(i % 2 == 0)])
            }
            let made = try replica.commit(batch, wall: wall)!
            try folder.writeOwn(made.segment.encoded(), device: id, sequence: made.segment.sequence)
            n += batch.count
            wall += 1
        }
        say("wrote \(replica.nextSequence - 1) segments")
    }

    static func benchCommit(directory: String, count: Int, prefill: Int) async throws {
        let container = directory + "/container"
        mkdir(container, 0o755)
        let store = try await open(container, directory + "/cache.sqlite", "bench")
        if prefill > 0 {
            let rows = (0..<prefill).map { n in
                StoreOperation.insert(table: "items", id: RowID(high: 0xB0B0_0000_0000_0000, low: UInt64(n)), values: ["name": .string("prefill \(n)"), "quantity": .integer(Int64(n))])
            }
            _ = try await store.commit(rows)
        }
        var micros: [Int64] = []
        for n in 0..<count {
            let start = DeviceStore.monotonicMicroseconds()
            _ = try await store.commit([.insert(table: "items", id: rowID("bench", n), values: ["name": .string("item \(n)"), "quantity": .integer(1)])])
            micros.append(DeviceStore.monotonicMicroseconds() - start)
        }
        micros.sort()
        func rank(_ p: Double) -> Int64 { micros[min(micros.count - 1, max(0, Int((p * Double(micros.count)).rounded(.up)) - 1))] }
        say("commits \(count) p50 \(rank(0.5)) us p99 \(rank(0.99)) us max \(micros.last ?? 0) us")
    }

    /// One transaction of `count` inserts into a new store, from the call to its acknowledgement
    /// (the cache's commit and the segment's `fsync`).
    static func benchBatch(directory: String, count: Int) async throws {
        let container = directory + "/container"
        mkdir(container, 0o755)
        let store = try await open(container, directory + "/cache.sqlite", "bench")
        let operations = (0..<count).map { n in
            StoreOperation.insert(table: "items", id: rowID("bench", n), values: ["name": .string("item \(n)"), "quantity": .integer(Int64(n))])
        }
        let start = DeviceStore.monotonicMicroseconds()
        guard let made = try await store.commit(operations) else { throw RigError("the batch changed nothing") }
        let micros = DeviceStore.monotonicMicroseconds() - start
        say("batch of \(count) inserts: \(micros) us, segment \(made.sequence)")
    }

    /// The cost of a snapshot of everything the store holds, and of a new device starting from it.
    static func benchSnapshot(container: String, database: String, device: String) async throws {
        let store = try await open(container, database, device)
        _ = try await store.commit([.insert(table: "items", id: rowID(device, 0), values: ["name": .string("one more")])])
        let rows = try await store.cacheCount("t_items")
        let start = DeviceStore.monotonicMicroseconds()
        guard let sequence = try await store.writeSnapshot() else { throw RigError("no snapshot written") }
        let written = DeviceStore.monotonicMicroseconds() - start
        var info = stat()
        let path = "\(container)/.ubiquity-stores/grocery/snapshots/\(device)/\(sequence)"
        guard stat(path, &info) == 0 else { throw RigError("no snapshot at \(path)") }
        say("snapshot of \(rows) rows: \(written / 1_000) ms, \(info.st_size) bytes")
        let lateStart = DeviceStore.monotonicMicroseconds()
        let late = try await open(container, database + ".late", "late")
        let lateTime = DeviceStore.monotonicMicroseconds() - lateStart
        say("a new device from it: \(try await late.cacheCount("t_items")) rows in \(lateTime / 1_000) ms")
    }
}
