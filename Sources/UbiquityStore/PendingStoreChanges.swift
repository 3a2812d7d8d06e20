/// What one subscriber of a store has not read yet, as one coalesced value: every import (or
/// local commit) since it last read, folded into one change per row relative to what it last saw.
/// The counterpart of the key-value outbox entry for `store.changed`: coalesced, bounded, never
/// dropped. Past `limit` rows (or conflicts and contests) it collapses into "read everything
/// again" (``isEverything``), which the subscriber answers by fetching again. The limit is
/// checked after each fold, so on the way it holds at most `limit` plus one import's rows.
///
/// Per row, the subscriber's view decides:
///
/// ```
/// inserted, then updated   ──▶ inserted                 (it never saw the row)
/// inserted, then deleted   ──▶ deleted                  (it may have fetched the row meanwhile)
/// updated c1, updated c2   ──▶ updated c1 ∪ c2
/// deleted, then inserted   ──▶ updated, any column      (it saw the row, the row is there again)
/// anything, then deleted   ──▶ deleted
/// ```
///
/// A subscriber also fetches whenever it likes, so what it holds may be newer than what it last
/// read here: a row inserted and deleted again since its last read may have reached it through
/// a fetch in between. So that row is owed as deleted, which a subscriber that never held it
/// ignores; a row owed as inserted or updated is one to read again and put in place.
public struct PendingStoreChanges: Sendable, Hashable {
    /// The most rows, conflicts and contests held before collapsing into ``isEverything``.
    public let limit: Int
    /// True once more changed than ``limit``: the subscriber must read everything again.
    public private(set) var isEverything = false
    public private(set) var inserted: Set<RowRef> = []
    /// Each updated row with the columns and relationship ends that changed; nil: any may have.
    public private(set) var updated: [RowRef: Set<String>?] = [:]
    public private(set) var deleted: Set<RowRef> = []
    public private(set) var conflicts: [ColumnConflict] = []
    public private(set) var contests: [DeleteContest] = []
    /// The devices whose segments (or this device's commits) made the changes.
    public private(set) var sources: Set<DeviceID> = []

    /// `limit` below 1 counts as 1.
    public init(limit: Int) { self.limit = max(1, limit) }

    /// Whether nothing is owed.
    public var isEmpty: Bool {
        !isEverything && inserted.isEmpty && updated.isEmpty && deleted.isEmpty && conflicts.isEmpty && contests.isEmpty
    }

    /// Folds one import's result, made from `source`'s segment, into what is owed.
    public mutating func add(_ result: ImportResult, from source: DeviceID) {
        guard !result.isEmpty else { return }
        sources.insert(source)
        guard !isEverything else { return }
        for row in result.inserted {
            if deleted.remove(row) != nil { updated[row] = .some(nil) } else if updated[row] == nil { inserted.insert(row) }
        }
        for (row, columns) in result.updated where !inserted.contains(row) && !deleted.contains(row) {
            switch updated[row] {
            case .none: updated[row] = .some(columns)
            case .some(.none): break
            case .some(.some(let earlier)): updated[row] = .some(earlier.union(columns))
            }
        }
        for row in result.deleted {
            updated.removeValue(forKey: row)
            inserted.remove(row)
            deleted.insert(row)
        }
        conflicts += result.conflicts
        contests += result.contests
        if inserted.count + updated.count + deleted.count > limit || conflicts.count + contests.count > limit { collapse() }
    }

    /// Any row may have changed — the store was opened again with a newer schema, its cache
    /// rebuilt — so the subscriber must read everything again.
    public mutating func markEverything() { collapse() }

    /// Everything owed, emptied (the writer took it).
    public mutating func take() -> PendingStoreChanges {
        defer { self = PendingStoreChanges(limit: limit) }
        return self
    }

    private mutating func collapse() {
        isEverything = true
        inserted = []
        updated = [:]
        deleted = []
        conflicts = []
        contests = []
    }
}
