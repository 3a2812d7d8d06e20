import Synchronization
import UbiquitySQLite
public import UbiquityStore
import UbiquityErrors

/// Snapshots and compaction (docs/stores.md, "Snapshots and compaction"): this device writes a
/// snapshot of the merged state every ``CompactionPolicy/snapshotEvery`` of its own segments,
/// removes its own segments once its newest snapshot covers them and every known device has
/// acknowledged them, and joins another device's snapshot when it starts with an empty cache or
/// meets a log whose next segment was compacted away.
extension DeviceStore {
    /// Writes a snapshot now, named after this device's last segment: its number, or nil when
    /// this device has written no segment or its newest snapshot is already at its last segment.
    public func writeSnapshot() async throws -> UInt64? {
        try await Self.run(on: io) { try self.snapshotBlocking() }
    }

    /// Removes what compaction may of this device's own files (``CompactionPlan``) and says what
    /// it decided; nil when its newest snapshot's segments are removed already.
    public func compact() async throws -> CompactionPlan? {
        try await Self.run(on: io) { try self.compactBlocking() }
    }

    /// What compaction would decide now, without removing anything: for status (who it waits
    /// for, who is silent).
    public func compactionStatus() async throws -> CompactionPlan {
        try await Self.run(on: io) { self.planBlocking() }
    }

    /// The devices compaction does not wait for (``forget(_:)``), each with the modification
    /// time of its acknowledgement file when it was forgotten (0: it had none).
    public var forgottenDevices: [DeviceID: Int64] { memory.withLock { $0.forgotten } }

    /// Every device this store knows of — a log, a snapshot or an acknowledgement in the folder,
    /// or a watermark in the cache — this one included, with the modification time of its
    /// acknowledgement file (0: none).
    public func knownDevices() async throws -> [DeviceID: Int64] {
        try await Self.run(on: io) {
            let acknowledgements = self.acknowledgementsBlocking()
            var known: [DeviceID: Int64] = [:]
            for device in self.knownBlocking(acknowledgements) { known[device] = acknowledgements[device]?.modifiedMilliseconds ?? 0 }
            return known
        }
    }

    /// Compaction stops waiting for `forgotten` (devices, each with the modification time of its
    /// acknowledgement file now, as ``knownDevices()`` read it), until each acknowledges again.
    /// Nothing of theirs is removed: their files are theirs. Runs compaction at once.
    public func forget(_ forgotten: [DeviceID: Int64]) async throws -> CompactionPlan? {
        memory.withLock { $0.forgotten.merge(forgotten) { _, new in new } }
        return try await compact()
    }

    /// The snapshots that could not be used since the store opened.
    public var snapshotProblems: [SnapshotProblem] { memory.withLock { $0.snapshotProblems } }

    /// What the last failed snapshot write or compaction said; nil once one succeeds.
    public var compactionFailure: String? { memory.withLock { $0.compactionFailure } }

    /// Why the last import pass stopped after it had committed imports (which it returned all
    /// the same); nil once a pass does not stop so.
    public var importFailure: String? { memory.withLock { $0.importFailure } }

    // MARK: - Writing and removing (on io)

    func snapshotBlocking() throws -> UInt64? {
        let (state, clock, imported, own) = memory.withLock { ($0.state, $0.clock, $0.imported, $0.ownSnapshot) }
        guard let sequence = imported[device], sequence > own else { return nil }
        let snapshot = try Snapshot(device: device, sequence: sequence, clock: clock.latest, watermarks: imported, state: state)
        try folder.writeSnapshot(snapshot.encoded(), device: device, sequence: sequence)
        memory.withLock { $0.ownSnapshot = max($0.ownSnapshot, sequence) }
        return sequence
    }

    func compactBlocking() throws -> CompactionPlan? {
        let (own, done) = memory.withLock { ($0.ownSnapshot, $0.compactedThrough) }
        guard own > done else { return nil }
        let plan = planBlocking()
        for sequence in plan.segments { try folder.removeOwn(.segment, device: device, sequence: sequence) }
        for sequence in plan.snapshots { try folder.removeOwn(.snapshot, device: device, sequence: sequence) }
        memory.withLock { m in
            m.compactedThrough = max(m.compactedThrough, min(own, plan.acknowledgedByAll))
            m.compactionFailure = nil
        }
        return plan
    }

    /// At a quiet point (``QuietPoint``) reached since the last one, shrinks every deleted row
    /// to its generation floor and drops the pairs that can never show again, in one cache
    /// transaction (docs/stores.md, "Tombstones shrink to floors"). A forgotten device is not
    /// waited for: back, it is a late device, whose edits its repairs bring back whole.
    func floorBlocking(_ db: SQLiteDatabase) throws {
        let (imported, last) = memory.withLock { ($0.imported, $0.flooredAt) }
        let now = wall()
        // A pass reads every register: at most one per spacing, however often the watermarks move
        // (each commit moves this device's); a delete too recent at one pass is looked at again
        // at the first pass a spacing later.
        if let last, now &- last < min(compaction.floorAfterMilliseconds, Self.floorPassSpacingMilliseconds) { return }
        let acknowledgements = acknowledgementsBlocking()
        guard QuietPoint.holds(device: device, imported: imported, acknowledgements: acknowledgements,
                               known: knownBlocking(acknowledgements).subtracting(planBlocking().forgotten)) else { return }
        var (state, _) = takeState()
        let floors = state.floorDeletedRows(deletedBy: now &- compaction.floorAfterMilliseconds)
        memory.withLock { $0.state = state }
        if !floors.isEmpty {
            do {
                try db.transaction { try StoreCache.saveFloors(db, floors, state) }
            } catch {
                try reloadState(db)
                throw error
            }
        }
        memory.withLock { m in
            m.flooredAt = now
            m.floored += floors.rows.count
        }
    }

    /// The least time between two floor passes (when `floorAfterMilliseconds` is not shorter): a
    /// pass costs a read of every register, and a delete waits a day before its floor anyway.
    static let floorPassSpacingMilliseconds: Int64 = 60_000

    /// How many rows this device shrank to floors, and how many repair segments it wrote, since
    /// the store opened.
    public var tombstoneCounts: (floored: Int, repairs: Int) { memory.withLock { ($0.floored, $0.repairsWritten) } }

    func planBlocking() -> CompactionPlan {
        let acknowledgements = acknowledgementsBlocking()
        return CompactionPlan(device: device, segments: folder.segmentSequences(of: device), snapshots: folder.snapshotSequences(of: device),
                              acknowledgements: acknowledgements, known: knownBlocking(acknowledgements), now: wall(),
                              silentAfterMilliseconds: compaction.silentAfterMilliseconds, forgotten: memory.withLock { $0.forgotten })
    }

    /// Every device's acknowledgement file as read now, joined over what each said before
    /// (``Acknowledgement/joining(_:over:stillKnown:)``): one being replaced by the sync engine
    /// as it is read keeps what it said, while the device has a log or a snapshot folder here or
    /// a watermark in the cache.
    func acknowledgementsBlocking() -> [DeviceID: Acknowledgement] {
        let read = folder.acknowledgements()
        let knownOtherwise = knownWithoutAcknowledgementsBlocking()
        return memory.withLock { m in
            m.acknowledgements = Acknowledgement.joining(read, over: m.acknowledgements) { knownOtherwise.contains($0) }
            return m.acknowledgements
        }
    }

    /// Every device known by a log or snapshot folder here, or a watermark in the cache.
    private func knownWithoutAcknowledgementsBlocking() -> Set<DeviceID> {
        var known = Set(folder.devices()).union(folder.snapshotDevices())
        known.formUnion(memory.withLock { $0.imported.keys })
        return known
    }

    func knownBlocking(_ acknowledgements: [DeviceID: Acknowledgement]) -> Set<DeviceID> {
        knownWithoutAcknowledgementsBlocking().union(acknowledgements.keys)
    }

    // MARK: - Joining (on io)

    /// Joins, for each device with snapshots, its newest usable one — when the cache is new, or
    /// when that device's next segment is not here and the snapshot reaches past it (compacted
    /// away). A snapshot that cannot be used is recorded once and an older one tried. Each join
    /// goes into `imports` as soon as it is committed.
    func joinSnapshots(_ db: SQLiteDatabase, into imports: inout [StoreImport]) throws {
        let fresh = memory.withLock { $0.imported.isEmpty }
        for writer in folder.snapshotDevices() {
            let (joined, failed, next) = memory.withLock { m in
                (m.joinedSnapshots[writer] ?? 0, Set(m.snapshotProblems.filter { $0.device == writer }.map(\.sequence)),
                 (m.imported[writer] ?? 0) &+ 1)
            }
            let candidates = folder.snapshotSequences(of: writer).filter { $0 > joined && $0 >= next && !failed.contains($0) }
            guard !candidates.isEmpty, fresh || !folder.hasSegment(device: writer, sequence: next) else { continue }
            newestUsable: for sequence in candidates.reversed() {
                switch try joinOne(writer, sequence, db) {
                case nil: continue
                case .failure(let problem)?: memory.withLock { $0.snapshotProblems.append(problem) }
                case .success(let joined)?:
                    imports.append(joined)
                    break newestUsable
                }
            }
        }
    }

    private func joinOne(_ writer: DeviceID, _ sequence: UInt64, _ db: SQLiteDatabase) throws -> Result<StoreImport, SnapshotProblem>? {
        func problem(_ code: StoreErrorCode, _ reason: String) -> Result<StoreImport, SnapshotProblem> {
            .failure(SnapshotProblem(device: writer, sequence: sequence, code: code.rawValue, reason: "snapshot \(sequence) of device \(writer): \(reason)"))
        }
        let bytes: [UInt8]
        switch folder.readSnapshot(device: writer, sequence: sequence, limit: compaction.snapshotLimits.maxSnapshotBytes) {
        case nil: return nil
        case .failure(let failure)?: return problem(failure.code, failure.reason)
        case .success(let read)?: bytes = read
        }
        let snapshot: Snapshot
        do {
            snapshot = try Snapshot(decoding: bytes, schema: schema, limits: compaction.snapshotLimits)
        } catch {
            return problem(error.code, error.message)
        }
        guard snapshot.device == writer, snapshot.sequence == sequence else {
            return problem(.segmentMalformed, "the file holds snapshot \(snapshot.sequence) of device \(snapshot.device)")
        }
        let refs = Set(snapshot.state.rowRegisters.map(\.ref)), pairs = Set(snapshot.state.pairRegisters.map(\.key))
        var (state, clock) = takeState()
        let before = Self.registers(refs, in: state)
        var result = state.join(snapshot.state)
        result.clockSkew = clock.receive(snapshot.clock, wall: wall())
        var watermarks = memory.withLock { $0.imported }
        var moved: [DeviceID: UInt64] = [:]
        for (other, mark) in snapshot.watermarks where mark > watermarks[other] ?? 0 {
            watermarks[other] = mark
            moved[other] = mark
        }
        let changed = refs.filter { before[$0] != state.rowState($0) }
        // Rows the snapshot brought back here (its delete was compacted away from the log): repaired
        // in this device's next segment, committed with the join, as after a segment's import.
        let repair = try repairSegment(result.repairs, in: state, after: watermarks[device] ?? 0)
        let token = try commitImport(db, device: writer, sequence: sequence, result: result, clock: clock.latest) {
            try StoreCache.save(db, rows: changed, pairs: pairs, before: before, after: state)
            for (other, mark) in moved { try StoreCache.setImported(db, device: other, sequence: mark) }
            if let repair {
                try StoreCache.setImported(db, device: device, sequence: repair.sequence)
                try StoreCache.setPending(db, sequence: repair.sequence, bytes: repair.bytes)
            }
        }
        memory.withLock { m in
            m.state = state
            m.clock = clock
            m.imported = watermarks
            m.joinedSnapshots[writer] = sequence
            if let repair {
                m.imported[device] = repair.sequence
                m.unwritten = repair
                m.repairsWritten += 1
            }
        }
        if repair != nil { try writeUnwritten() }
        return .success(StoreImport(device: writer, sequence: sequence, result: result, token: token))
    }
}
