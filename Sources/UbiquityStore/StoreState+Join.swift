extension StoreState {
    /// Every row's register, tombstones included, by table then id: what a snapshot keeps.
    public var rowRegisters: [(ref: RowRef, row: RowState)] {
        rows.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.flatMap { table in
            (rows[table] ?? [:]).sorted { $0.key < $1.key }.map { (RowRef(table: table, id: $0.key), $0.value) }
        }
    }

    /// Every pair's register, in order.
    public var pairRegisters: [(key: PairKey, pair: PairState)] {
        pairStates.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// How many row registers the state holds, tombstones included.
    public var rowRegisterCount: Int { rows.values.reduce(0) { $0 + $1.count } }

    /// Merges another state of the same store into this one, register by register, and says what
    /// changed for clients (no conflicts: a join settles nothing a segment had not settled), and
    /// which rows this device must repair others with (``ImportResult/repairs``; none when this
    /// state was empty: it holds nothing the snapshot's writer did not).
    ///
    /// Every register is a lattice whose join is what applying the changes behind it does (the
    /// greatest generation, and at it the union of writes and deletes; each column's greatest
    /// write; each pair's greatest relate or unrelate), so when `other` is the merge of a prefix
    /// of each device's log, the result is the merge of the longer of the two prefixes of each:
    /// what importing the missing segments would have given. That is how a device starts from a
    /// snapshot (docs/stores.md, "Snapshots").
    public mutating func join(_ other: StoreState) -> ImportResult {
        if rows.isEmpty, pairStates.isEmpty { return adopt(other) }
        var tracker = ImportTracker()
        for (table, others) in other.rows {
            for (id, incoming) in others {
                let ref = RowRef(table: table, id: id)
                if rows[table]?[id] == incoming { continue }
                tracker.touch(ref, in: self)
                let old = rows[table]?[id]
                var row = old ?? RowState()
                row.join(incoming)
                if row.columns != old?.columns { tracker.columnsChanged.insert(ref) }
                if row.deletes != old?.deletes { tracker.deletesGrew.insert(ref) }
                rows[table, default: [:]][id] = row
            }
        }
        for (key, incoming) in other.pairStates {
            if let current = pairStates[key], !current.precedes(incoming) { continue }
            if let r = schema.relationship(key.relationship) {
                let ends = [RowRef(table: r.from, id: key.from), RowRef(table: r.to, id: key.to)]
                for ref in ends {
                    tracker.touch(ref, in: self)
                    pairsByRow[ref, default: []].insert(key)
                }
            }
            tracker.touch(key, in: self)
            pairStates[key] = incoming
        }
        // A snapshot can bring a delete a device never imported as a segment (it was compacted
        // away): the rows it brings back here are repaired as after an import.
        var result = tracker.result(self)
        result.repairs = tracker.repairs(self)
        return result
    }

    /// Joining into an empty state is taking the other's registers: every row that exists is
    /// inserted (its pairs go with it), and a delete contest that stands is reported — what the
    /// import tracker would say, without comparing each row with nothing.
    private mutating func adopt(_ other: StoreState) -> ImportResult {
        rows = other.rows
        pairStates = other.pairStates
        pairsByRow = other.pairsByRow
        var result = ImportResult()
        for (ref, row) in rowRegisters where row.inserted {
            let alive = row.isAlive(schema.deletes)
            if alive { result.inserted.append(ref) }
            if row.isContested {
                result.contests.append(DeleteContest(row: ref, deletedBy: row.deletes.sorted.map(\.device), editedBy: row.unseenWriters, kept: alive))
            }
        }
        result.inserted.sort()
        result.contests.sort { $0.row < $1.row }
        return result
    }
}
