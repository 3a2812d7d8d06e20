/// An index and its history brought back from a saved snapshot and its journal, ready to hand to
/// a ``QueryEngine``: the engine goes on with the same epoch, so tokens handed out before the
/// restart are answered exactly once the start-up crawl (recorded as ordinary history) is in.
///
/// ```
/// snapshot ─ restore slots ─ replay journal (apply + record) ─ containers gone from the
/// configuration removed (recorded) ─ engine ─ start-up crawl diffs against it (recorded)
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
    /// - Throws: ``SavedIndexError``: the caller starts from nothing under a new epoch.
    public static func restore(snapshot: [UInt8], journal: [UInt8]?, containers: [ContainerDescriptor],
                               retention: ChangeHistory.Retention, now: Int64, bootID: String) throws(SavedIndexError) -> RestoredIndex {
        let contents = try IndexSnapshot.decode(snapshot)
        guard contents.final || contents.bootID == bootID else { throw .uncleanReboot }
        let index = MetadataIndex()
        try index.restore(containers: contents.containers, columns: contents.columns, free: contents.free)
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
        if let (records, ignoredBytes) = decoded {
            for record in records {
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
            replayed = records.count
            ignored = ignoredBytes
        }

        // A clock may have been handed out after the last record (a handout writes nothing):
        // from here on every change is history.
        _ = history.handOut()

        for configured in containers {
            guard let saved = index.containers.first(where: { $0.id == configured.id }), saved != configured else { continue }
            let what = saved.root != configured.root ? "its directory is now \(configured.root), was \(saved.root)" : "its package types changed"
            throw .configurationChanged("container \(configured.id): \(what)")
        }
        let configured = Set(containers.map(\.id))
        let removed = index.containers.map(\.id).filter { !configured.contains($0) && index.containerIndex($0).flatMap(index.rootID) != nil }
        if !removed.isEmpty {
            history.noteContainerRemoved()
            let changes = index.apply(removed.map { .listing($0, [], CrawlListing(root: nil)) }, record: history.isTracking)
            history.record(changes, now: now)
        }
        history.trim(now: now)
        return RestoredIndex(index: index, history: history, snapshotID: contents.snapshotID, savedAt: contents.savedAt,
                             journalRecords: replayed, journalBytesIgnored: ignored, removedContainers: removed)
    }
}
