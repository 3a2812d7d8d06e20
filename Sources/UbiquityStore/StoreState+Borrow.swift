extension StoreState {
    /// Copies `ref`'s register from `base` unless this state has it already: how a transaction's
    /// writer works on the few registers it touches (``StoreReplica``) instead of a copy of all.
    mutating func borrow(_ ref: RowRef, from base: StoreState) {
        guard rows[ref.table]?[ref.id] == nil, let row = base.rows[ref.table]?[ref.id] else { return }
        rows[ref.table, default: [:]][ref.id] = row
    }

    /// Copies the pair's register and both its rows' from `base`, each unless held already: what
    /// ``isShown(_:)`` reads.
    mutating func borrow(_ key: PairKey, from base: StoreState) {
        if let r = schema.relationship(key.relationship) {
            borrow(RowRef(table: r.from, id: key.from), from: base)
            borrow(RowRef(table: r.to, id: key.to), from: base)
        }
        guard pairStates[key] == nil, let pair = base.pairStates[key] else { return }
        pairStates[key] = pair
    }

    /// Copies from `base` every register `change` merges into.
    mutating func borrow(registersOf change: Change, from base: StoreState) {
        switch change {
        case .insert(let write), .update(let write): borrow(RowRef(table: write.table, id: write.row), from: base)
        case .delete(let deletion): borrow(RowRef(table: deletion.table, id: deletion.row), from: base)
        case .relate(let pair), .unrelate(let pair): borrow(PairKey(relationship: pair.relationship, from: pair.from, to: pair.to), from: base)
        }
    }
}
