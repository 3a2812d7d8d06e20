public import UbiquityErrors

/// A store's merged state: every row (with its tombstone, generation and per-column clocks) and
/// every relationship pair, as the merge of every segment applied to it — in any order, any
/// number of times (docs/stores.md, "The merge rules").
///
/// A pure value: ``apply(_:)`` takes a segment and returns what changed for clients. The daemon
/// will keep the same registers in SQLite and apply segments row by row with ``RowState``;
/// this type is the reference it is tested against.
public struct StoreState: Sendable, Equatable {
    public private(set) var schema: Schema
    var rows: [String: [RowID: RowState]] = [:]
    var pairStates: [PairKey: PairState] = [:]
    /// The pairs each row is in, either end: what a row's delete or return changes besides itself.
    var pairsByRow: [RowRef: Set<PairKey>] = [:]

    public init(schema: Schema) { self.schema = schema }

    /// A state restored from its registers, as the daemon's cache kept them (``StoreRegisters``).
    public init(schema: Schema, rows: [RowRef: RowState], pairs: [PairKey: PairState]) {
        self.schema = schema
        for (ref, row) in rows { self.rows[ref.table, default: [:]][ref.id] = row }
        pairStates = pairs
        for key in pairs.keys {
            guard let r = schema.relationship(key.relationship) else { continue }
            pairsByRow[RowRef(table: r.from, id: key.from), default: []].insert(key)
            pairsByRow[RowRef(table: r.to, id: key.to), default: []].insert(key)
        }
    }

    /// Moves to a newer schema that only adds (``Schema/checkAdditive(to:)``).
    public mutating func upgrade(to newer: Schema) throws(StoreError) {
        try schema.checkAdditive(to: newer)
        schema = newer
    }

    // MARK: - Reading

    /// The row's register, also for a deleted row; nil for a row never heard of.
    public func rowState(_ ref: RowRef) -> RowState? { rows[ref.table]?[ref.id] }

    public func pairState(_ pair: PairKey) -> PairState? { pairStates[pair] }

    /// Whether the row exists for clients.
    public func isAlive(_ ref: RowRef) -> Bool { rowState(ref)?.isAlive(schema.deletes) ?? false }

    /// The row's non-null columns, or nil when it does not exist (never did, or deleted).
    public func row(_ ref: RowRef) -> [String: StoreValue]? {
        guard let state = rowState(ref), state.isAlive(schema.deletes) else { return nil }
        return state.values
    }

    /// The ids of the rows of `table` that exist, in order.
    public func rowIDs(_ table: String) -> [RowID] {
        (rows[table] ?? [:]).filter { $0.value.isAlive(schema.deletes) }.keys.sorted()
    }

    /// The rows of the relationship's `to` table related to `from` (Grocery: an item's tags).
    public func related(_ relationship: String, from: RowID) -> [RowID] {
        (pairsByRow[ref(relationship, from: from)] ?? []).filter { $0.relationship == relationship && $0.from == from && isShown($0) }
            .map(\.to).sorted()
    }

    /// The rows of the relationship's `from` table related to `to` (Grocery: a tag's items).
    public func related(_ relationship: String, to: RowID) -> [RowID] {
        guard let r = schema.relationship(relationship) else { return [] }
        return (pairsByRow[RowRef(table: r.to, id: to)] ?? []).filter { $0.relationship == relationship && $0.to == to && isShown($0) }
            .map(\.from).sorted()
    }

    /// The ids of the rows of `table` heard of that do not exist, in order: the tombstones, and
    /// rows whose insert has not arrived yet (only later changes of them have).
    public func deletedRowIDs(_ table: String) -> [RowID] {
        (rows[table] ?? [:]).filter { !$0.value.isAlive(schema.deletes) }.keys.sorted()
    }

    /// Whether a pair shows: related last, at the generations both rows are alive at now.
    public func isShown(_ pair: PairKey) -> Bool {
        guard let state = pairStates[pair], state.present, let r = schema.relationship(pair.relationship),
              let from = rows[r.from]?[pair.from], let to = rows[r.to]?[pair.to] else { return false }
        return from.generation == state.fromGeneration && to.generation == state.toGeneration
            && from.isAlive(schema.deletes) && to.isAlive(schema.deletes)
    }

    /// Every pair `ref` is in, either end, shown or not: what its delete or return changes besides itself.
    public func pairs(of ref: RowRef) -> Set<PairKey> { pairsByRow[ref] ?? [] }

    /// The row as a client sees it; without its values unless `values` (they cost a dictionary).
    func view(_ ref: RowRef, values: Bool = true) -> ImportTracker.RowView {
        let state = rowState(ref) ?? RowState()
        let alive = state.isAlive(schema.deletes)
        return ImportTracker.RowView(alive: alive, generation: state.generation, values: alive && values ? state.values : [:],
                                     contested: state.inserted && state.isContested, holdsColumns: !state.holdsNoColumns)
    }

    private func ref(_ relationship: String, from: RowID) -> RowRef {
        RowRef(table: schema.relationship(relationship)?.from ?? "", id: from)
    }

    // MARK: - Merging

    /// Merges a segment's changes and says what changed for clients. Checks the whole segment
    /// against the schema first, so a segment is applied entirely or not at all.
    ///
    /// - Throws: ``StoreErrorCode/segmentNeedsUpgrade`` for a newer schema version,
    ///   ``StoreErrorCode/segmentDoesNotMatchSchema`` naming the first change that does not fit.
    ///
    /// The segment's repairs are merged after its changes, each with ``RowState/join(_:)``; the
    /// result's ``ImportResult/repairs`` names the rows this device must now repair others with
    /// (a repair that changes a row here counts too: what it brought may be what another device
    /// dropped at a floor since).
    public mutating func apply(_ segment: Segment) throws(StoreError) -> ImportResult {
        try schema.check(segment)
        var tracker = ImportTracker(expectedRows: segment.changes.count + segment.repairs.count)
        for change in segment.changes { merge(change, tracking: &tracker) }
        for repair in segment.repairs {
            tracker.touch(repair.ref, in: self)
            let old = rowState(repair.ref)
            withRow(repair.ref) { $0.join(repair.register) }
            let new = rowState(repair.ref)
            if old?.columns != new?.columns { tracker.columnsChanged.insert(repair.ref) }
            if old?.deletes != new?.deletes { tracker.deletesGrew.insert(repair.ref) }
        }
        var result = tracker.result(self)
        result.repairs = tracker.repairs(self)
        return result
    }

    /// Runs `body` on the register of `ref` (a new one for a row never heard of), in place.
    private mutating func withRow(_ ref: RowRef, _ body: (inout RowState) -> Void) {
        body(&rows[ref.table, default: [:]][ref.id, default: RowState()])
    }

    /// Merges one change that fits the schema.
    mutating func merge(_ change: Change, tracking tracker: inout ImportTracker) {
        switch change {
        case .insert(let write), .update(let write):
            let ref = RowRef(table: write.table, id: write.row)
            tracker.touch(ref, in: self)
            let isInsert = if case .insert = change { true } else { false }
            // Changed in place: an import merges every row it brings.
            withRow(ref) { row in
                // A write this row has seen (this one again, or a later one of its device) settles no
                // conflict anew, so importing a segment twice reports nothing the second time; nor
                // does a write to a generation the row has left behind.
                let seen = row.generation == write.generation && row.writes.covers(write.clock)
                if row.columns.isEmpty { row.reserveColumns(write.columns.count) }
                row.noteWrite(generation: write.generation, clock: write.clock, insert: isInsert)
                let report = tracker.enabled && !seen && row.generation == write.generation
                for column in write.columns {
                    let incoming = ColumnState(value: column.value, generation: write.generation, clock: write.clock, base: column.base)
                    if tracker.enabled, !tracker.columnsChanged.contains(ref), row.columns[column.name] != incoming {
                        // Changed unless the column already holds a greater write.
                        if row.columns[column.name].map({ $0.precedes(incoming) }) ?? true { tracker.columnsChanged.insert(ref) }
                    }
                    if let (winner, loser) = row.merge(column: column.name, incoming), report {
                        tracker.conflicts.append(ColumnConflict(row: ref, column: column.name, winner: winner.value, winnerClock: winner.clock,
                                                                loser: loser.value, loserClock: loser.clock))
                    }
                }
            }
        case .delete(let deletion):
            let ref = RowRef(table: deletion.table, id: deletion.row)
            tracker.touch(ref, in: self)
            withRow(ref) { row in
                let before = row.deletes
                row.noteDelete(generation: deletion.generation, clock: deletion.clock, seen: deletion.seen)
                if tracker.enabled, row.deletes != before { tracker.deletesGrew.insert(ref) }
            }
        case .relate(let pair), .unrelate(let pair):
            guard let r = schema.relationship(pair.relationship) else { return }
            let key = PairKey(relationship: pair.relationship, from: pair.from, to: pair.to)
            let ends = [(RowRef(table: r.from, id: pair.from), pair.fromGeneration), (RowRef(table: r.to, id: pair.to), pair.toGeneration)]
            for (ref, _) in ends { tracker.touch(ref, in: self) }
            tracker.touch(key, in: self)
            // Relating is an edit of both rows: it keeps a row a concurrent delete had not seen.
            for (ref, generation) in ends {
                withRow(ref) { $0.noteWrite(generation: generation, clock: pair.clock) }
                pairsByRow[ref, default: []].insert(key)
            }
            let isRelate = if case .relate = change { true } else { false }
            let incoming = PairState(present: isRelate, fromGeneration: pair.fromGeneration, toGeneration: pair.toGeneration, clock: pair.clock)
            if let current = pairStates[key], !current.precedes(incoming) { return }
            pairStates[key] = incoming
        }
    }
}
