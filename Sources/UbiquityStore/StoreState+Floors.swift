extension StoreState {
    /// Shrinks every deleted row to its generation floor (``RowState/floor()``) and drops the
    /// pair registers that can never show again; returns what changed.
    ///
    /// What a client sees does not change. The caller decides when: the daemon does it at a
    /// quiet point (docs/stores.md, "Tombstones shrink to floors"), and a row a late edit brings
    /// back gets its columns again from the repair of a device that still held them.
    ///
    /// A pair can never show again when one of its rows has moved past the generation the pair
    /// was written at (generations only grow), or, under ``DeletePolicy/win``, when one of its
    /// rows is deleted at that generation (a deleted generation never shows again there). Under
    /// ``DeletePolicy/lose`` the pairs of a deleted row are kept: a late edit can bring the row
    /// back, and its pairs with it.
    ///
    /// - Parameter deletedBy: only rows whose latest delete's reading is at or before these
    ///   milliseconds (the daemon waits a day); every deleted row by default.
    public mutating func floorDeletedRows(deletedBy: Int64 = .max) -> StoreFloors {
        var floors = StoreFloors()
        let policy = schema.deletes
        for (table, tableRows) in rows {
            for (id, row) in tableRows where row.canFloor(policy, deletedBy: deletedBy) { floors.rows.append(RowRef(table: table, id: id)) }
        }
        // Changed in place: the registers are not copied.
        for ref in floors.rows { rows[ref.table]?[ref.id]?.floor() }
        for (key, pair) in pairStates where canNeverShow(key, pair) { floors.droppedPairs.append(key) }
        for key in floors.droppedPairs {
            pairStates[key] = nil
            guard let r = schema.relationship(key.relationship) else { continue }
            for ref in [RowRef(table: r.from, id: key.from), RowRef(table: r.to, id: key.to)] {
                pairsByRow[ref]?.remove(key)
                if pairsByRow[ref]?.isEmpty == true { pairsByRow[ref] = nil }
            }
        }
        floors.rows.sort()
        floors.droppedPairs.sort()
        return floors
    }

    /// Whether the pair can never show again, whatever arrives later (see ``floorDeletedRows()``).
    func canNeverShow(_ key: PairKey, _ pair: PairState) -> Bool {
        guard let r = schema.relationship(key.relationship), let from = rows[r.from]?[key.from], let to = rows[r.to]?[key.to] else {
            return false
        }
        for (row, generation) in [(from, pair.fromGeneration), (to, pair.toGeneration)] {
            if row.generation > generation { return true }
            if schema.deletes == .win, row.generation == generation, !row.deletes.isEmpty { return true }
        }
        return false
    }
}
