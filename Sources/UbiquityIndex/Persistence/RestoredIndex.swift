/// An index and its history brought back from a saved snapshot and its journal, ready to hand to
/// a ``QueryEngine``: the engine goes on with the same epoch, so tokens handed out before the
/// restart are answered exactly once the start-up crawl (recorded as ordinary history) is in.
///
/// ```
/// snapshot ─ restore slots ─ replay journal (apply + record) ─ containers gone from the
/// configuration removed, new ones added (recorded) ─ the journal continued with those records
/// (continueJournal(in:)) ─ engine ─ start-up crawl diffs against it (recorded, journaled)
/// ```
public struct RestoredIndex {
    let index: MetadataIndex
    public let history: ChangeHistory
    /// The snapshot this continues.
    public let snapshotID: UInt64
    /// When the snapshot was written (seconds since 1970).
    public let savedAt: Int64
    /// Journal records replayed, and bytes of a torn last record left out.
    public let journalRecords: Int
    public let journalBytesIgnored: Int
    /// Saved containers no longer configured: their items were removed, as history.
    public let removedContainers: [ContainerID]
    /// How the journal goes on (``continueJournal(in:)``); nil without a boot id, where a journal
    /// could not say which boot wrote it: a snapshot is then written anew before the first batch.
    public let journalContinuation: JournalContinuation?
    /// What the restore changed after the journal's records (containers removed from or added to
    /// the configuration): the first records of the continued journal.
    let restoreRecords: [IndexJournal.Record]
    /// Bytes of the records replayed (for the engine's count of what the journal holds).
    let journalRecordBytes: Int
    /// How the name index came back: from the order the snapshot saved, or sorted anew.
    public let nameIndexSource: NameIndexSource

    /// Where a restored name index came from (the log says it).
    public enum NameIndexSource: String, Sendable {
        /// The snapshot's saved order, checked (format 3).
        case saved
        /// Sorted from the names: a snapshot of format 1 or 2.
        case sortedNoSavedOrder = "sorted (no saved order)"
        /// Sorted from the names: the saved order did not hold (a snapshot taken while names were
        /// still being filed, or damage).
        case sortedSavedOrderRefused = "sorted (saved order refused)"
    }
    /// Whether ``continueJournal(in:)`` succeeded: the engine then journals every batch at once.
    public private(set) var isJournalContinued = false
    /// Records and bytes the continued journal holds after the snapshot.
    private(set) var continuedRecords = 0
    private(set) var continuedBytes = 0

    /// Live entries of the restored index, container roots included.
    public var entryCount: Int { index.entryCount }

    /// Rebuilds the index from `snapshot` and `journal`.
    ///
    /// - Parameters:
    ///   - journal: the snapshot's own journal, or the one it continues (written while the
    ///     snapshot was); nil or another snapshot's journal: only a final or format 1 snapshot is
    ///     used without one.
    ///   - containers: the containers configured now. One that was saved with another directory or
    ///     other package types refuses the whole saved index (its entries' flags would be wrong).
    ///   - retention: the history retention configured now (applied at once).
    ///   - now: seconds since 1970, for the containers' removal and the retention.
    ///   - bootID: the kernel's boot id now. A snapshot of another boot is used only when it was
    ///     the final one of a clean shutdown: otherwise journal records still in the page cache
    ///     may have been lost with the machine.
    ///   - stepAside: looked at between stretches of the work, on each of its threads: the
    ///     daemon's restore steps aside while an answer given meanwhile is written.
    /// - Throws: ``SavedIndexError``: the caller starts from nothing under a new epoch.
    public static func restore(snapshot: [UInt8], journal: [UInt8]?, containers: [ContainerDescriptor],
                               retention: ChangeHistory.Retention, now: Int64, bootID: String,
                               stepAside: StepAside = .never) throws(SavedIndexError) -> RestoredIndex {
        let contents = try IndexSnapshot.decode(snapshot, stepAside: stepAside)
        // Not a clean shutdown's: its journal was in the page cache of a boot that has ended.
        guard contents.final || contents.bootID == bootID else { throw .uncleanReboot }
        let index = MetadataIndex()
        let tookNameOrder = try index.restore(containers: contents.containers, columns: contents.columns, free: contents.free,
                                              nameOrder: contents.nameOrder, stepAside: stepAside)
        let nameIndexSource: NameIndexSource = tookNameOrder ? .saved
            : contents.nameOrder == nil ? .sortedNoSavedOrder : .sortedSavedOrderRefused
        var history = ChangeHistory(epoch: contents.epoch, sequence: contents.sequence, horizon: contents.horizon,
                                    isTracking: contents.isTracking, containerRemovedAt: contents.containerRemovedAt,
                                    entries: contents.history, retention: retention)

        var replayed = 0, ignored = 0
        // A final snapshot has nothing after it: the journal of the snapshot before is not read.
        let decoded = try journal.flatMap { (bytes) throws(SavedIndexError) in
            try IndexJournal.decode(bytes, snapshotID: contents.snapshotID, continuing: contents.final ? nil : contents.continues)
        }
        // Written while batches went on: without the journal that holds them it is behind clocks
        // already handed out (the daemon stopped while the journal was being replaced, or removed it).
        if contents.needsJournal && decoded == nil { throw .invalid("the snapshot's journal is missing") }
        if let decoded {
            // The boot its records were written in: the header's (format 3), else the snapshot's.
            // A journal of another boot is trusted only as a clean shutdown's: no record, no boot
            // named (a daemon that went on from a final snapshot named its boot, durably, first).
            let header = decoded.bootID ?? ""
            let writtenIn = header.isEmpty ? contents.bootID : header
            if writtenIn != bootID && (!decoded.records.isEmpty || !header.isEmpty) { throw .uncleanReboot }
        }
        if let decoded {
            for record in decoded.records {
                stepAside()
                switch record {
                case .batch(let changes, let time, let tracking):
                    let changeSet = index.apply(changes, record: tracking)
                    if tracking && !history.isTracking { _ = history.handOut() }
                    history.record(changeSet, now: time)
                case .containerAdded(let descriptor):
                    index.addContainer(descriptor)
                case .containerRemoved:
                    history.noteContainerRemoved()
                }
            }
            replayed = decoded.records.count
            ignored = decoded.ignoredBytes
        }

        // A clock may have been handed out after the last record (a handout writes nothing):
        // from here on every change is history.
        _ = history.handOut()

        for configured in containers {
            guard let saved = index.containers.first(where: { $0.id == configured.id }), saved != configured else { continue }
            let what = saved.root != configured.root ? "its directory is now \(configured.root), was \(saved.root)" : "its package types changed"
            throw .configurationChanged("container \(configured.id): \(what)")
        }
        // What follows goes to the journal as records (``continueJournal(in:)``), in this order, so
        // that a restore after a crash replays it exactly.
        var restoreRecords: [IndexJournal.Record] = []
        let configured = Set(containers.map(\.id))
        let removed = index.containers.map(\.id).filter { !configured.contains($0) && index.containerIndex($0).flatMap(index.rootID) != nil }
        if !removed.isEmpty {
            history.noteContainerRemoved()
            let removal: [FileSystemChange] = removed.map { .listing($0, [], CrawlListing(root: nil)) }
            restoreRecords += [.containerRemoved, .batch(removal, time: now, tracking: history.isTracking)]
            let changes = index.apply(removal, record: history.isTracking)
            history.record(changes, now: now)
        }
        // Containers configured since the snapshot, at the end of the list (entries name their
        // container by position), as the engine would add them.
        for descriptor in containers where index.containerIndex(descriptor.id) == nil {
            restoreRecords.append(.containerAdded(descriptor))
            index.addContainer(descriptor)
        }
        history.trim(now: now)

        var continuation: JournalContinuation?
        if bootID.isEmpty {
            continuation = nil
        } else if let decoded, !contents.final || decoded.bootID == bootID {
            continuation = .append(journalOf: decoded.journalOf, length: UInt64(decoded.wholeLength))
        } else {
            let carried = decoded.map { Array(journal![$0.recordsStart..<$0.wholeLength]) } ?? []
            continuation = .fresh(snapshotID: contents.snapshotID, header: IndexJournal.header(snapshotID: contents.snapshotID, bootID: bootID),
                                  carried: carried)
        }
        return RestoredIndex(index: index, history: history, snapshotID: contents.snapshotID, savedAt: contents.savedAt,
                             journalRecords: replayed, journalBytesIgnored: ignored, removedContainers: removed,
                             journalContinuation: continuation, restoreRecords: restoreRecords,
                             journalRecordBytes: decoded.map { $0.wholeLength - $0.recordsStart } ?? 0,
                             nameIndexSource: nameIndexSource)
    }

    /// Goes on with the saved index's journal (``journalContinuation``), its first records what
    /// the restore changed: from here on the engine journals each batch before its clock is
    /// handed out, with no snapshot written first. Call before the engine applies any batch.
    ///
    /// - Throws: what the persistence could not write (it has removed the saved index); the
    ///   engine then does not journal until a snapshot is written (the daemon writes one at once).
    public mutating func continueJournal(in persistence: any IndexPersistence) throws {
        guard let continuation = journalContinuation else { throw SavedIndexError.invalid("no boot id: the journal cannot say its boot") }
        let records = restoreRecords.flatMap(IndexJournal.encode)
        try persistence.continueJournal(continuation, records: records)
        isJournalContinued = true
        continuedRecords = journalRecords + restoreRecords.count
        continuedBytes = journalRecordBytes + records.count
        if case .fresh(_, _, let carried) = continuation { continuedBytes = carried.count + records.count }
    }
}
