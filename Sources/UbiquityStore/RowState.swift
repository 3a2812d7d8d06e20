/// What a store keeps of one row — also of a deleted one: a tombstone, whose columns stay until
/// it shrinks to a *floor* at a quiet point (``floor()``), and whose generation and vectors stay
/// for good, because an edit concurrent with the delete can still bring the row back.
///
/// Every field merges as a lattice (docs/stores.md, "The merge rules"): the greatest generation
/// any change of the row carries; at that generation, each device's latest write and latest
/// delete with what the deletes had seen; each column's greatest (generation, clock) write.
/// So applying changes in any order, any number of times, leaves the same state.
public struct RowState: Sendable, Hashable {
    /// The row's causal counter: 1 after the first insert, one more after each re-insert.
    public private(set) var generation: UInt64 = 0
    /// Whether an insert of ``generation`` has been merged. Devices' logs arrive in any order, so
    /// an update or a relate can come before the insert it was made after; until the insert
    /// comes, the row does not show (it would lack the columns an insert must give).
    public private(set) var inserted = false
    /// Each device's latest write (insert, update, relate, unrelate) at ``generation``.
    public private(set) var writes = VersionVector()
    /// Each device's latest delete at ``generation``; empty when nobody deleted this generation.
    public private(set) var deletes = VersionVector()
    /// What the deletes at ``generation`` had seen of ``writes``, merged.
    public private(set) var deletesSaw = VersionVector()
    public private(set) var columns: [String: ColumnState] = [:]

    public init() {}

    /// A register as the cache kept it (``StoreRegisters``).
    init(generation: UInt64, inserted: Bool, writes: VersionVector, deletes: VersionVector, deletesSaw: VersionVector,
         columns: [String: ColumnState]) {
        self.generation = generation
        self.inserted = inserted
        self.writes = writes
        self.deletes = deletes
        self.deletesSaw = deletesSaw
        self.columns = columns
    }

    /// Notes a write made at `generation`; `insert` when it is the insert that starts it.
    mutating func noteWrite(generation: UInt64, clock: HLC, insert: Bool = false) {
        advance(to: generation)
        guard generation == self.generation else { return }
        writes.record(clock)
        if insert { inserted = true }
    }

    /// Notes a delete made at `generation` by a device that had seen `seen`.
    mutating func noteDelete(generation: UInt64, clock: HLC, seen: VersionVector) {
        advance(to: generation)
        guard generation == self.generation else { return }
        deletes.record(clock)
        deletesSaw.merge(seen)
    }

    private mutating func advance(to generation: UInt64) {
        guard generation > self.generation else { return }
        self.generation = generation
        inserted = false
        writes = VersionVector()
        deletes = VersionVector()
        deletesSaw = VersionVector()
    }

    /// Joins another register of the same row: the greater generation's writes and deletes (both
    /// when equal), each column's greater write. The same as applying the changes behind both.
    mutating func join(_ other: RowState) {
        advance(to: other.generation)
        if other.generation == generation {
            if other.inserted { inserted = true }
            writes.merge(other.writes)
            deletes.merge(other.deletes)
            deletesSaw.merge(other.deletesSaw)
        }
        for (name, column) in other.columns { _ = merge(column: name, column) }
    }

    /// Makes room for `count` columns (a row's first write: its columns arrive one by one).
    mutating func reserveColumns(_ count: Int) { columns.reserveCapacity(count) }

    /// Merges one column write; returns the write that lost, when the two were a true conflict.
    mutating func merge(column name: String, _ incoming: ColumnState) -> (winner: ColumnState, loser: ColumnState)? {
        guard let current = columns[name] else {
            columns[name] = incoming
            return nil
        }
        let incomingWins = current.precedes(incoming)
        let (winner, loser) = incomingWins ? (incoming, current) : (current, incoming)
        if incomingWins { columns[name] = incoming }
        guard winner.clock != loser.clock, winner.generation == loser.generation, winner.clock.device != loser.clock.device,
              winner.value != loser.value, winner.missed(loser) else { return nil }
        return (winner, loser)
    }

    /// Whether a deleted row still holds columns a floor would drop: the insert of ``generation``
    /// merged, a delete of it standing under `policy`, and some column kept.
    /// - Parameter deletedBy: the latest delete's reading must be at or before these milliseconds.
    public func canFloor(_ policy: DeletePolicy, deletedBy: Int64 = .max) -> Bool {
        guard inserted, !columns.isEmpty, let latest = deletes.readings.values.map(\.milliseconds).max(), latest <= deletedBy else { return false }
        return !isAlive(policy)
    }

    /// Shrinks a deleted row to its *generation floor*: the generation, whether its insert was
    /// merged, the writes, the deletes and what they saw stay; the columns go. A later insert
    /// starts the next generation, and a late write to this one meets the deletes as before
    /// (docs/stores.md, "Tombstones shrink to floors").
    mutating func floor() { columns = [:] }

    /// Whether this register is a floor or looks like one: deleted at ``generation`` with no
    /// column of it. Such a device has nothing of the row's columns to repair with.
    public var holdsNoColumns: Bool { !columns.values.contains { $0.generation == generation } }

    /// The devices whose latest write at ``generation`` no delete had seen.
    public var unseenWriters: [DeviceID] {
        writes.sorted.filter { !deletesSaw.covers($0) }.map(\.device)
    }

    /// Whether a delete and an edit it had not seen meet at this generation.
    public var isContested: Bool { !deletes.isEmpty && !unseenWriters.isEmpty }

    /// Whether the row exists: the insert of this generation has been merged, and no delete of
    /// it stands — under ``DeletePolicy/lose`` a delete stands only if it had seen every write.
    public func isAlive(_ policy: DeletePolicy) -> Bool {
        guard inserted else { return false }
        if deletes.isEmpty { return true }
        return policy == .lose && isContested
    }

    /// The column's value as the row shows it: written at this generation, else null.
    public func value(_ column: String) -> StoreValue {
        guard let state = columns[column], state.generation == generation else { return .null }
        return state.value
    }

    /// Every non-null column the row shows.
    public var values: [String: StoreValue] {
        var values: [String: StoreValue] = [:]
        for (name, state) in columns where state.generation == generation && state.value != .null { values[name] = state.value }
        return values
    }
}
