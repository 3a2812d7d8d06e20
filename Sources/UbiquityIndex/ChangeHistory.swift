/// What the index looked like at each clock it handed out, as far back as the retention allows:
/// for every item changed since, its state just before its first change (or nothing, when it was
/// not an item then). That is what a query started `since` a clock needs to answer exactly what
/// changed *for that query*: whether the item matched then, and whether it matches now.
///
/// ```
/// clocks:    …  41  42          43      44       (one per batch that changed anything)
/// entries:          (42, #7, before: Item_1 v1)   (44, #7, before: Item_1 v2)
///                   (42, #9, before: nil)          — #9 was created in batch 42
/// since 41 → #7 as it was in v1, #9 absent then: compare with now.
/// since 42 → #7 as it was in v2 (its first change after 42); #9 unchanged since.
/// ```
///
/// Nothing is kept until the first clock is handed out (nobody can ask about earlier), so the
/// first crawl of a big tree costs nothing here. Pure: the time is passed in.
public struct ChangeHistory: Sendable {
    /// How much history is kept: at most `maxChanges` entries, none older than `maxAge`.
    public struct Retention: Sendable, Equatable {
        public var maxChanges: Int
        public var maxAge: Duration
        public init(maxChanges: Int = 50_000, maxAge: Duration = .seconds(12 * 3600)) {
            self.maxChanges = maxChanges
            self.maxAge = maxAge
        }
    }

    struct Entry: Sendable {
        let sequence: UInt64
        let id: ItemID
        /// The item just before this change; nil when it was not an item (it was inserted).
        let before: FrozenItem?
        /// Seconds since the epoch of the wall clock.
        let time: Int64
    }

    public let epoch: UInt64
    public let retention: Retention
    /// Batches that changed something since the epoch began (counted once tracking began).
    public private(set) var sequence: UInt64
    /// Tokens older than this cannot be answered: some of their changes were let go.
    public private(set) var horizon: UInt64
    /// Whether a clock was handed out, so changes are worth keeping.
    public private(set) var isTracking = false
    /// The sequence when a container was last removed from the configuration: tokens up to it
    /// are answered fresh (``FreshReason/containerRemoved``).
    public private(set) var containerRemovedAt: UInt64?
    /// In chunks: a saved index's snapshot shares them while it is written, and the next change
    /// recorded then copies the last chunk, not every entry (``ChunkedColumn``).
    private var entries = ChunkedColumn<Entry>()
    /// Entries before this index were let go (dropped a whole chunk at a time, to keep removal cheap).
    private var first = 0

    public init(epoch: UInt64, sequence: UInt64 = 0, retention: Retention = Retention()) {
        self.epoch = epoch
        self.sequence = sequence
        self.horizon = sequence
        self.retention = retention
    }

    /// The entries kept.
    public var count: Int { entries.count - first }

    /// The entries kept, oldest first (what a saved index writes).
    var keptEntries: Slice<ChunkedColumn<Entry>> { entries[first...] }

    /// History as a saved index had it, under the retention configured now.
    init(epoch: UInt64, sequence: UInt64, horizon: UInt64, isTracking: Bool, containerRemovedAt: UInt64?, entries: [Entry],
         retention: Retention) {
        self.epoch = epoch
        self.sequence = sequence
        self.horizon = horizon
        self.isTracking = isTracking
        self.containerRemovedAt = containerRemovedAt
        self.entries = ChunkedColumn(entries)
        self.retention = retention
    }

    /// The clock of the index as it is now, without starting to track.
    public var clock: HistoryClock { HistoryClock(epoch: epoch, sequence: sequence) }

    /// The clock of the index as it is now, for a client: from here on changes are kept.
    public mutating func handOut() -> HistoryClock {
        isTracking = true
        return clock
    }

    /// Keeps what one batch changed (`changes` must be recorded by the index while tracking).
    ///
    /// A batch larger than ``Retention/maxChanges`` could not be kept whole, so no clock before it
    /// could be answered anyway: it moves the horizon past everything instead of keeping the part
    /// that fits (a sync engine's first facts change every item of a container: at 100k items that
    /// part held about 25 MB of item states nobody could use).
    public mutating func record(_ changes: ChangeSet, now: Int64) {
        guard isTracking, !changes.isEmpty else { return }
        sequence += 1
        guard changes.changes.count <= retention.maxChanges else {
            entries = ChunkedColumn<Entry>()
            first = 0
            horizon = sequence
            return
        }
        for change in changes.changes.values {
            entries.append(Entry(sequence: sequence, id: change.id, before: change.kind == .inserted ? nil : change.before,
                                 time: now))
        }
        trim(now: now)
    }

    /// A container leaves the configuration now (before its items' removal is applied, so that a
    /// token handed out in between is covered too).
    public mutating func noteContainerRemoved() {
        containerRemovedAt = sequence
    }

    /// Lets go of what is past the retention.
    public mutating func trim(now: Int64) {
        let oldest = now.saturatingSubtracting(retention.maxAge.components.seconds)
        while first < entries.count, count > retention.maxChanges || entries[first].time < oldest {
            horizon = max(horizon, entries[first].sequence)
            first += 1
        }
        // Whole chunks let go of: no entry moves.
        let chunks = first >> ChunkedColumn<Entry>.chunkShift
        if chunks > 0 {
            entries.removeFirstChunks(chunks)
            first -= chunks << ChunkedColumn<Entry>.chunkShift
        }
    }

    /// For every item changed since `clock`, its state then: the snapshot before its first
    /// change after `clock`, or nil when it was not an item then.
    public func states(since clock: HistoryClock) -> Result<[ItemID: FrozenItem?], FreshReason> {
        guard clock.epoch == epoch else { return .failure(.otherEpoch) }
        guard clock.sequence <= sequence else { return .failure(.ahead) }
        guard clock.sequence >= horizon else { return .failure(.pastRetention) }
        if let containerRemovedAt, clock.sequence <= containerRemovedAt { return .failure(.containerRemoved) }
        var states: [ItemID: FrozenItem?] = [:]
        // Entries are in sequence order: find the first after `clock`, then keep each item's first.
        var low = first, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].sequence <= clock.sequence { low = middle + 1 } else { high = middle }
        }
        for entry in entries[low...] where states.index(forKey: entry.id) == nil {
            states[entry.id] = .some(entry.before)
        }
        return .success(states)
    }
}
