import Dispatch
import Glibc
import Synchronization
import UbiquitySQLite
public import UbiquityStore
public import UbiquitySystem
import UbiquityErrors

/// One store on this device's disk: its folder in the container (every device's log segments)
/// and its SQLite cache in the daemon's state directory (docs/stores.md, "On disk").
///
/// - ``commit(_:)``: a local transaction, applied to the cache and then written as this device's
///   next segment, `fsync`ed; acknowledged only then.
/// - ``importAvailable()``: every other device's segments not imported yet, each in one SQLite
///   transaction with that device's watermark, so each is imported exactly once.
/// - ``fetch(_:where:sortedBy:limit:)``: rows of a table from the cache.
///
/// Every wait for the disk (SQLite, `fsync`, reading segments) happens on the store's own serial
/// Dispatch queue (``io``), never on a Swift task: the async methods suspend meanwhile. Calls
/// are serialised by ``io``; the SQLite connection sits behind a `Mutex` besides, which is what
/// lets the compiler prove that one thread at a time uses it.
public final class DeviceStore: Sendable {
    public let schema: Schema
    public let device: DeviceID
    public let folder: StoreFolder
    let database: Mutex<SQLiteDatabase>
    let limits: SegmentLimits
    let compaction: CompactionPolicy
    let wall: @Sendable () -> Int64
    /// The one thread at a time that waits for this store's disk.
    let io: DispatchQueue
    let memory: Mutex<Memory>

    /// What the cache holds, kept in memory too (the merge engine works on it).
    struct Memory {
        var state: StoreState
        var clock: HybridLogicalClock
        var imported: [DeviceID: UInt64]
        var conditions: [DeviceID: DeviceSyncState.Condition] = [:]
        /// This device's last segment, committed to the cache but not yet written as a file
        /// (the write failed): written before anything else.
        var unwritten: (sequence: UInt64, bytes: [UInt8])?
        /// Per device, the newest of its snapshots joined into the state since the store opened.
        var joinedSnapshots: [DeviceID: UInt64] = [:]
        /// Snapshots that could not be read or joined, by device and sequence: each tried once.
        var snapshotProblems: [SnapshotProblem] = []
        /// This device's newest snapshot (0: none), and the last own segment compaction removed up to.
        var ownSnapshot: UInt64 = 0
        var compactedThrough: UInt64 = 0
        /// What the last snapshot write or compaction that failed said (nil: none failed since).
        var compactionFailure: String?
        /// Why the last import pass stopped after committing imports (nil once a pass does not).
        var importFailure: String?
        /// Devices compaction does not wait for, with their acknowledgement's time when forgotten.
        var forgotten: [DeviceID: Int64] = [:]
        /// The watermarks this device's acknowledgement file holds (as read at open, then as written).
        var acknowledged: [DeviceID: UInt64] = [:]
        /// Every device's acknowledgement as last known (``acknowledgementsBlocking()``).
        var acknowledgements: [DeviceID: Acknowledgement] = [:]
        /// The wall clock of the last floor pass, at a quiet point (nil: none since open).
        var flooredAt: Int64?
        /// How many rows were shrunk to floors, and how many repairs written, since the store opened.
        var floored = 0
        var repairsWritten = 0

        var nextSequence: UInt64 { imported[clock.device, default: 0] &+ 1 }
    }

    /// Opens the store `store` of the container held by `container`, with its cache at
    /// `databasePath` (made, or rebuilt from the segments, when missing, damaged or of another
    /// schema version), finishes writing a segment a crash interrupted, and imports every
    /// segment present — this device's own first, which matters only when the cache is new.
    ///
    /// - Parameter wall: this device's wall clock, milliseconds since 1970 (tests pass their own).
    public static func open(schema: Schema, device: DeviceID, container: Directory, store: String, databasePath: String,
                            limits: SegmentLimits = SegmentLimits(), compaction: CompactionPolicy = CompactionPolicy(),
                            wall: @escaping @Sendable () -> Int64 = DeviceStore.systemWallClock) async throws -> DeviceStore {
        guard StoreLayout.isStoreName(store) else {
            throw StoreError(.invalidSchema, "'\(store)' cannot name a store: use 1 to 64 of A-Z a-z 0-9 _, not starting with a digit")
        }
        let io = DispatchQueue(label: "ubiquity.store.\(store)")
        return try await run(on: io) {
            let folder = try StoreFolder(container: container, store: store)
            let (database, contents) = try openCache(at: databasePath, schema: schema, device: device)
            var memory = Memory(state: contents.state, clock: HybridLogicalClock(device: device, latest: contents.clock), imported: contents.imported)
            memory.forgotten = compaction.forgotten
            if let pending = contents.pending, pending.sequence == memory.imported[device] { memory.unwritten = pending }
            folder.removeSnapshotTemporaries(of: device)
            memory.ownSnapshot = folder.snapshotSequences(of: device).last ?? 0
            memory.acknowledged = folder.acknowledgements()[device]?.imported ?? [:]
            let opened = DeviceStore(schema: schema, device: device, folder: folder, database: database, limits: limits,
                                     compaction: compaction, wall: wall, io: io, memory: memory)
            try opened.withDatabase { db in _ = try opened.importBlocking(db) }
            return opened
        }
    }

    private init(schema: Schema, device: DeviceID, folder: StoreFolder, database: sending SQLiteDatabase, limits: SegmentLimits,
                 compaction: CompactionPolicy, wall: @escaping @Sendable () -> Int64, io: DispatchQueue, memory: Memory) {
        self.schema = schema
        self.device = device
        self.folder = folder
        self.database = Mutex(database)
        self.limits = limits
        self.compaction = compaction
        self.wall = wall
        self.io = io
        self.memory = Mutex(memory)
    }

    /// The merged state, as the cache holds it (read between writes and imports).
    public func currentState() async throws -> StoreState {
        try await Self.run(on: io) { self.memory.withLock { $0.state } }
    }

    /// Takes the state out of memory (only on ``io``, between accesses), leaving an empty one,
    /// so that its storage is uniquely referenced and changed in place; the caller puts it back.
    func takeState() -> (StoreState, HybridLogicalClock) {
        memory.withLock { m in
            let state = m.state
            m.state = StoreState(schema: schema)
            return (state, m.clock)
        }
    }

    /// The registers of `refs` that `state` has heard of.
    static func registers(_ refs: Set<RowRef>, in state: StoreState) -> [RowRef: RowState] {
        var registers: [RowRef: RowState] = [:]
        for ref in refs { if let row = state.rowState(ref) { registers[ref] = row } }
        return registers
    }

    /// Saves an import of `device`'s `sequence` (a segment, or a snapshot joined) in one cache
    /// transaction: what `save` writes, the clock and the change log; returns the change's token.
    /// When it fails, the state in memory is the cache's again and the error is thrown.
    func commitImport(_ db: SQLiteDatabase, device: DeviceID, sequence: UInt64, result: ImportResult, clock: HLC,
                      _ save: () throws -> Void) throws -> Int64 {
        do {
            return try db.transaction {
                try save()
                try StoreCache.setClock(db, clock)
                return try StoreCache.logChange(db, device: device, sequence: sequence, result)
            }
        } catch {
            try reloadState(db)
            throw error
        }
    }

    /// After a failed cache transaction, the state in memory is the cache's again.
    func reloadState(_ db: SQLiteDatabase) throws {
        let contents = try StoreCache.load(db, schema: schema, device: device)
        memory.withLock { $0.state = contents.state }
    }

    /// How far each device's log has been imported and why it stopped (this device's own too).
    public var syncStates: [DeviceSyncState] {
        memory.withLock { m in
            Set(m.imported.keys).union(m.conditions.keys).sorted().map {
                DeviceSyncState(device: $0, imported: m.imported[$0] ?? 0, condition: m.conditions[$0] ?? .current)
            }
        }
    }

    /// Per device with a log here, how many of its segments are present past the last one
    /// imported: what waits (a damaged segment, a newer schema) or is about to be imported.
    public func waitingSegments() async throws -> [DeviceID: UInt64] {
        try await Self.run(on: io) {
            let imported = self.memory.withLock { $0.imported }
            var waiting: [DeviceID: UInt64] = [:]
            for device in Set(self.folder.devices()).union(imported.keys) {
                let latest = self.folder.latestSequence(of: device), done = imported[device] ?? 0
                waiting[device] = latest > done ? latest - done : 0
            }
            return waiting
        }
    }

    // MARK: - Local writes

    /// Applies `operations` as one transaction: to the cache (with the segment's bytes, in one
    /// SQLite transaction), then as this device's next segment file, `fsync`ed. Returns once the
    /// file is durable; nil when the operations change nothing.
    ///
    /// After a crash between the two, the next ``open`` writes the segment from the cache, so an
    /// acknowledged transaction is never lost and a segment number is never used twice.
    ///
    /// - Throws: ``StoreErrorCode/invalidChange`` (nothing changed), or a ``SystemCallError``
    ///   from writing the file (the cache has the change; the file is written before the next one).
    public func commit(_ operations: [StoreOperation]) async throws -> StoreCommit? {
        try await Self.run(on: io) { try self.withDatabase { db in try self.commitBlocking(operations, db) } }
    }

    private func commitBlocking(_ operations: [StoreOperation], _ db: SQLiteDatabase) throws -> StoreCommit? {
        try writeUnwritten()
        let (state, clock) = takeState()
        let nextSequence = memory.withLock { $0.nextSequence }
        // Consumed, so the replica holds the only reference and the commit changes it in place.
        var replica = StoreReplica(state: consume state, clock: clock, nextSequence: nextSequence)
        let made: (segment: Segment, result: ImportResult, before: [RowRef: RowState])
        do {
            guard let committed = try replica.commit(operations, wall: wall()) else {
                memory.withLock { $0.state = replica.state }
                return nil
            }
            made = committed
        } catch {
            memory.withLock { $0.state = replica.state }      // a refused transaction changes nothing
            throw error
        }
        let sequence = made.segment.sequence, bytes = made.segment.encoded()
        var token: Int64 = 0
        do {
            try db.transaction {
                try StoreCache.save(db, changes: made.segment.changes, before: made.before, after: replica.state)
                try StoreCache.setImported(db, device: device, sequence: sequence)
                try StoreCache.setClock(db, replica.clock.latest)
                try StoreCache.setPending(db, sequence: sequence, bytes: bytes)
                token = try StoreCache.logChange(db, device: device, sequence: sequence, made.result)
            }
        } catch {
            try reloadState(db)
            throw error
        }
        memory.withLock { m in
            m.state = replica.state
            m.clock = replica.clock
            m.imported[device] = sequence
            m.unwritten = (sequence, bytes)
        }
        try writeUnwritten()
        if compaction.snapshotEvery > 0, sequence % compaction.snapshotEvery == 0 {
            // The transaction is acknowledged already: a snapshot that cannot be written is
            // reported (``compactionFailure``) and tried again at the next one.
            do {
                _ = try snapshotBlocking()
                _ = try compactBlocking()
            } catch {
                memory.withLock { $0.compactionFailure = "snapshot \(sequence) of device \(device): \(error)" }
            }
        }
        return StoreCommit(sequence: sequence, result: made.result, token: token)
    }

    /// Writes this device's last segment when the cache has it and its file is not written yet.
    func writeUnwritten() throws {
        guard let unwritten = memory.withLock({ $0.unwritten }) else { return }
        try folder.writeOwn(unwritten.bytes, device: device, sequence: unwritten.sequence)
        memory.withLock { if $0.unwritten?.sequence == unwritten.sequence { $0.unwritten = nil } }
    }

    // MARK: - Imports

    /// Imports every segment present and not imported yet, device by device in sequence order;
    /// a device whose next segment cannot be imported stops there (``syncStates``) while the
    /// others go on. Returns what each imported segment changed.
    public func importAvailable() async throws -> [StoreImport] {
        try await Self.run(on: io) { try self.withDatabase { db in try self.importBlocking(db) } }
    }

    /// A pass that fails after it committed imports returns them all the same — they are in the
    /// cache and their subscribers must hear of them, or nothing would ever tell them — and keeps
    /// why it stopped in ``importFailure``; one that fails before any throws.
    func importBlocking(_ db: SQLiteDatabase) throws -> [StoreImport] {
        var imports: [StoreImport] = []
        do {
            try importAndAcknowledge(db, into: &imports)
            memory.withLock { $0.importFailure = nil }
        } catch {
            guard !imports.isEmpty else { throw error }
            memory.withLock { $0.importFailure = "the import pass of device \(device) stopped after \(imports.count) imports: \(error)" }
            return imports
        }
        do {
            _ = try compactBlocking()
        } catch {
            memory.withLock { $0.compactionFailure = "compaction of device \(device)'s segments: \(error)" }
        }
        do {
            try floorBlocking(db)
        } catch {
            memory.withLock { $0.compactionFailure = "shrinking tombstones of device \(device): \(error)" }
        }
        return imports
    }

    /// Joins snapshots, imports every device's next segments, and writes this device's
    /// acknowledgement: appends each import to `imports` as soon as it is committed.
    private func importAndAcknowledge(_ db: SQLiteDatabase, into imports: inout [StoreImport]) throws {
        try writeUnwritten()
        try joinSnapshots(db, into: &imports)
        let others = folder.devices().filter { $0 != device }
        for source in [device] + others {
            while true {
                let next = memory.withLock { $0.imported[source, default: 0] } &+ 1
                let outcome = try importOne(source, next, db)
                memory.withLock { $0.conditions[source] = outcome.condition }
                guard let imported = outcome.imported else { break }
                imports.append(imported)
            }
        }
        // Also after this device's own commits alone: a quiet point needs every device's
        // acknowledgement to give its own log too (``QuietPoint``).
        let (imported, acknowledged) = memory.withLock { ($0.imported, $0.acknowledged) }
        if !imports.isEmpty || imported != acknowledged {
            try folder.writeAcknowledgements(of: device, imported)
            memory.withLock { $0.acknowledged = imported }
        }
    }

    private func importOne(_ source: DeviceID, _ sequence: UInt64, _ db: SQLiteDatabase) throws -> (imported: StoreImport?, condition: DeviceSyncState.Condition) {
        func degraded(_ code: StoreErrorCode, _ reason: String) -> (StoreImport?, DeviceSyncState.Condition) {
            (nil, .degraded(sequence: sequence, code: code.rawValue, reason: "segment \(sequence) of device \(source): \(reason)"))
        }
        let bytes: [UInt8]
        switch folder.read(device: source, sequence: sequence, limit: limits.maxSegmentBytes) {
        case nil:
            // Compacted away, and the snapshot that covers it cannot be read: that device's
            // import waits for a snapshot it can read, and says so.
            let problem = memory.withLock { $0.snapshotProblems.last { $0.device == source && $0.sequence >= sequence } }
            if let problem {
                return degraded(StoreErrorCode(rawValue: problem.code) ?? .segmentMalformed,
                                "it is not here (compacted), and \(problem.reason)")
            }
            return (nil, .current)
        case .failure(let problem)?: return degraded(problem.code, problem.reason)
        case .success(let read)?: bytes = read
        }
        let segment: Segment
        do {
            segment = try Segment(decoding: bytes, limits: limits, readerSchemaVersion: schema.version)
        } catch where error.code == .segmentNeedsUpgrade {
            let version = if case .integer(let v)? = error.details["schemaVersion"] { UInt32(clamping: v) } else { UInt32(0) }
            return (nil, .needsUpgrade(sequence: sequence, schemaVersion: version))
        } catch {
            return degraded(error.code, error.message)
        }
        guard segment.device == source, segment.sequence == sequence else {
            return degraded(.segmentMalformed, "the file holds segment \(segment.sequence) of device \(segment.device)")
        }
        // The state is taken out of memory while it is changed, so that it is changed in place
        // rather than copied whole for every segment.
        var (state, clock) = takeState()
        let touched = StoreCache.touched(by: segment.changes, schema)
        let rows = touched.rows.union(segment.repairs.map(\.ref))
        let before = Self.registers(rows, in: state)
        var result: ImportResult
        do {
            result = try state.apply(segment)
        } catch {
            memory.withLock { $0.state = state }        // a refused segment changes nothing
            return degraded(error.code, error.message)
        }
        if let latest = segment.changes.map(\.clock).max() { result.clockSkew = clock.receive(latest, wall: wall()) }
        // A row this import brought back, whose columns this device holds: its register goes into
        // this device's next segment, committed with the import (docs/stores.md, "Tombstones
        // shrink to floors"), so a crash cannot lose it.
        let repair = try repairSegment(result.repairs, in: state)
        let token = try commitImport(db, device: source, sequence: sequence, result: result, clock: clock.latest) {
            try StoreCache.save(db, rows: rows, pairs: touched.pairs, before: before, after: state)
            try StoreCache.setImported(db, device: source, sequence: sequence)
            if let repair {
                try StoreCache.setImported(db, device: device, sequence: repair.sequence)
                try StoreCache.setPending(db, sequence: repair.sequence, bytes: repair.bytes)
            }
        }
        memory.withLock { m in
            m.state = state
            m.clock = clock
            m.imported[source] = sequence
            if let repair {
                m.imported[device] = repair.sequence
                m.unwritten = repair
                m.repairsWritten += 1
            }
        }
        if repair != nil { try writeUnwritten() }
        return (StoreImport(device: source, sequence: sequence, result: result, token: token), .current)
    }

    /// This device's next segment, repairing `refs` with their registers in `state`; nil for none.
    /// - Parameter after: this device's last segment, when not the one in memory (a snapshot
    ///   being joined may move it).
    func repairSegment(_ refs: [RowRef], in state: StoreState, after: UInt64? = nil) throws -> (sequence: UInt64, bytes: [UInt8])? {
        let repairs = refs.compactMap { ref in state.rowState(ref).map { RowRepair(table: ref.table, row: ref.id, register: $0) } }
        guard !repairs.isEmpty else { return nil }
        let sequence = after.map { $0 &+ 1 } ?? memory.withLock { $0.nextSequence }
        let segment = try Segment(device: device, sequence: sequence, schemaVersion: schema.version, changes: [], repairs: repairs)
        return (sequence, segment.encoded())
    }

    // MARK: - Reading

    /// The rows of `table` the filter keeps, sorted by the columns given (then by id), at most
    /// `limit`: read from the cache's typed table; only the rows `ids` names when it is given
    /// (at most ``maxFetchIDs``: what a live fetch reads again after a change).
    ///
    /// - Throws: ``StoreErrorCode/invalidChange`` for a table or sort column the schema does not
    ///   have, or more than ``maxFetchIDs`` ids.
    public func fetch(_ table: String, ids: Set<RowID>? = nil, where filter: (@Sendable (StoreRow) -> Bool)? = nil,
                      sortedBy sort: [(column: String, ascending: Bool)] = [], limit: Int? = nil) async throws -> [StoreRow] {
        guard let schemaTable = schema.table(table) else {
            throw StoreError(.invalidChange, "there is no table '\(table)'", details: ["table": .string(table)])
        }
        for key in sort where schemaTable.column(key.column) == nil && key.column != "id" {
            throw StoreError(.invalidChange, "table '\(table)' has no column '\(key.column)' to sort by", details: ["column": .string(key.column)])
        }
        if let ids, ids.count > Self.maxFetchIDs {
            throw StoreError(.invalidChange, "a fetch by id names \(ids.count) rows; at most \(Self.maxFetchIDs)", details: ["limit": .integer(Int64(Self.maxFetchIDs))])
        }
        let columns = schemaTable.columns
        let arguments = (ids ?? []).map { SQLiteValue.text($0.description) }
        let byID = ids == nil ? "" : " WHERE id IN (\(Array(repeating: "?", count: arguments.count).joined(separator: ",")))"
        let sql = "SELECT id\(columns.map { ", \"\($0.name)\"" }.joined()) FROM \"t_\(table)\"" + byID
        return try await Self.run(on: io) { try self.withDatabase { db in
            var rows: [StoreRow] = []
            if ids?.isEmpty ?? false { return rows }
            for raw in try db.rows(sql, arguments) {
                guard let id = raw[0].text.flatMap(RowID.init) else { continue }
                var values: [String: StoreValue] = [:]
                for (offset, column) in columns.enumerated() {
                    let value = StoreCache.storeValue(raw[offset + 1], column.type)
                    if value != .null { values[column.name] = value }
                }
                let row = StoreRow(id: id, values: values)
                if filter?(row) ?? true { rows.append(row) }
            }
            rows.sort { StoreRow.ordered($0, $1, by: sort) }
            return limit.map { Array(rows.prefix(max(0, $0))) } ?? rows
        } }
    }

    /// The most ids one fetch by id may name (SQLite binds each as a parameter).
    public static let maxFetchIDs = 1_000

    /// The rows of the relationship's other end related to `id`, from the cache's join table:
    /// `related("tags", from: carrots)` are carrots' tags, `related("tags", to: mall)` mall's items.
    public func related(_ relationship: String, from id: RowID) async throws -> [RowID] {
        try await relatedIDs(relationship, "SELECT to_id FROM \"r_\(relationship)\" WHERE from_id = ? ORDER BY to_id", id)
    }

    public func related(_ relationship: String, to id: RowID) async throws -> [RowID] {
        try await relatedIDs(relationship, "SELECT from_id FROM \"r_\(relationship)\" WHERE to_id = ? ORDER BY from_id", id)
    }

    /// Every pair of a relationship, by the row at one end (`byFrom`: the `from` table's rows)
    /// with the ids at the other end in order: `pairs("tags", byFrom: true)` maps each item to its
    /// tags. Read whole from the join table.
    public func pairs(_ relationship: String, byFrom: Bool) async throws -> [RowID: [RowID]] {
        guard schema.relationship(relationship) != nil else {
            throw StoreError(.invalidChange, "there is no relationship '\(relationship)'", details: ["relationship": .string(relationship)])
        }
        let sql = byFrom ? "SELECT from_id, to_id FROM \"r_\(relationship)\" ORDER BY from_id, to_id"
                         : "SELECT to_id, from_id FROM \"r_\(relationship)\" ORDER BY to_id, from_id"
        return try await Self.run(on: io) { try self.withDatabase { db in
            var pairs: [RowID: [RowID]] = [:]
            for row in try db.rows(sql) {
                guard let end = row[0].text.flatMap(RowID.init), let other = row[1].text.flatMap(RowID.init) else { continue }
                pairs[end, default: []].append(other)
            }
            return pairs
        } }
    }

    private func relatedIDs(_ relationship: String, _ sql: String, _ id: RowID) async throws -> [RowID] {
        guard schema.relationship(relationship) != nil else {
            throw StoreError(.invalidChange, "there is no relationship '\(relationship)'", details: ["relationship": .string(relationship)])
        }
        return try await Self.run(on: io) {
            try self.withDatabase { db in try db.rows(sql, [.text(id.description)]).compactMap { $0[0].text.flatMap(RowID.init) } }
        }
    }

    /// The change log's latest token (0: nothing logged yet): the store's clock now, as the last
    /// ``StoreCommit`` or ``StoreImport`` carried it.
    public func latestToken() async throws -> Int64 {
        try await Self.run(on: io) { try self.withDatabase { db in try db.value("SELECT max(token) FROM ubiq_changes")?.integer ?? 0 } }
    }

    /// Counts of the cache's tables, for tests and measurements: rows of `t_<table>`, registers, watermarks.
    public func cacheCount(_ sqlTable: String) async throws -> Int {
        try await Self.run(on: io) { try self.withDatabase { db in Int(try db.value("SELECT count(*) FROM \"\(sqlTable)\"")?.integer ?? 0) } }
    }

    // MARK: - Helpers

    /// CLOCK_REALTIME in milliseconds.
    public static let systemWallClock: @Sendable () -> Int64 = { System.wallClockNanoseconds() / 1_000_000 }

    /// Opens the cache at `path` and loads it; a cache that does not open or load is removed
    /// and made anew (everything in it follows from the segments), but a cache another process
    /// holds locked is not damaged: that error is thrown.
    private static func openCache(at path: String, schema: Schema, device: DeviceID) throws -> (SQLiteDatabase, StoreCache.Contents) {
        do {
            return try loadCache(at: path, schema: schema, device: device)
        } catch let error as SQLiteError where error.isBusy {
            throw error
        } catch {
            try removeCache(at: path)
            return try loadCache(at: path, schema: schema, device: device)
        }
    }

    private static func loadCache(at path: String, schema: Schema, device: DeviceID) throws -> (SQLiteDatabase, StoreCache.Contents) {
        // Another process may hold the cache for a moment (a tool reading it, a daemon that is
        // stopping): wait for it rather than fail (10 s).
        let db = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 10_000)
        // A commit lost to a power cut is harmless: the segments are the truth, and a segment
        // whose watermark was lost is imported again, whole, at the next open.
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        let contents = try db.transaction {
            _ = try StoreCache.prepare(db, schema: schema, device: device)
            return try StoreCache.load(db, schema: schema, device: device)
        }
        return (db, contents)
    }

    /// Runs `body` with the connection (on ``io``: the lock is never contended).
    func withDatabase<T: Sendable>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try database.withLock { (db: inout SQLiteDatabase) throws -> T in try body(db) }
    }

    /// Removes the cache's database and its WAL files (what is absent is not a failure).
    private static func removeCache(at path: String) throws {
        for file in [path, path + "-wal", path + "-shm"] where unlink(file) != 0 && errno != ENOENT {
            throw SystemCallError("unlink", errno: errno, path: file)
        }
    }

    /// Runs blocking `work` on `queue` (no Swift task there) while the caller suspends.
    static func run<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}

extension DeviceStore {
    /// CLOCK_MONOTONIC in microseconds, for measurements.
    public static func monotonicMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) &* 1_000_000 &+ Int64(now.tv_nsec / 1_000)
    }
}
