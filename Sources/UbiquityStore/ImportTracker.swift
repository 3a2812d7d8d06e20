/// What the rows and pairs an import touches looked like before it, so that the import can
/// say what it changed for a client (``ImportResult``) without diffing the whole store.
///
/// A pair's visibility depends on its register and on both rows' generation and existence, so
/// the pairs to compare are those the import related or unrelated, and those of rows that
/// appeared, vanished or changed generation — not every pair of every row it touched (a tag
/// with 100,000 items is touched by each item tagged with it).
struct ImportTracker {
    /// A row as a client sees it, plus whether a delete contest stands at its generation.
    struct RowView: Equatable {
        var alive: Bool
        var generation: UInt64
        var values: [String: StoreValue]
        var contested: Bool
        /// Whether the register holds a column of its generation (a floor holds none).
        var holdsColumns: Bool
    }

    /// Whether anything is tracked at all: the writer's working copy needs no result.
    let enabled: Bool
    private(set) var rowsBefore: [RowRef: RowView] = [:]
    /// The registers of the pairs the import related or unrelated, as they were (nil: none).
    private(set) var pairsBefore: [PairKey: PairState?] = [:]
    var conflicts: [ColumnConflict] = []
    /// The rows whose columns the import changed (a write that won, or the first; a repair that
    /// brought a column), and those it brought a new delete.
    var columnsChanged: Set<RowRef> = []
    var deletesGrew: Set<RowRef> = []

    /// - Parameter expectedRows: about how many rows will be touched (room is made for them).
    init(enabled: Bool = true, expectedRows: Int = 0) {
        self.enabled = enabled
        if enabled { rowsBefore.reserveCapacity(expectedRows) }
    }

    /// Records `ref` as it is now, unless already recorded.
    mutating func touch(_ ref: RowRef, in state: StoreState) {
        guard enabled, rowsBefore[ref] == nil else { return }
        rowsBefore[ref] = state.view(ref)
    }

    /// Records the pair's register as it is now, unless already recorded.
    mutating func touch(_ pair: PairKey, in state: StoreState) {
        guard enabled, pairsBefore[pair] == nil else { return }
        pairsBefore[pair] = .some(state.pairState(pair))
    }

    /// The rows this device must repair others with after the import: rows that are back —
    /// alive under ``DeletePolicy/lose`` while a delete contest stands — whose columns it holds,
    /// and that the import brought back, or whose columns it changed, or to which it brought
    /// another delete (a device that imports that delete may shrink the row to a floor). A row
    /// that was a floor here is left to the devices that held it (docs/stores.md, "Tombstones
    /// shrink to floors").
    func repairs(_ state: StoreState) -> [RowRef] {
        guard enabled, state.schema.deletes == .lose else { return [] }
        var refs: [RowRef] = []
        for (ref, before) in rowsBefore {
            guard let row = state.rowState(ref), row.inserted, row.isContested, row.isAlive(.lose), !row.holdsNoColumns else { continue }
            let sameGeneration = before.generation == row.generation
            if sameGeneration, !before.alive, !before.holdsColumns { continue }
            if !(sameGeneration && before.alive && before.contested) || columnsChanged.contains(ref) || deletesGrew.contains(ref) {
                refs.append(ref)
            }
        }
        return refs.sorted()
    }

    /// Compares what was recorded with `state` now.
    func result(_ state: StoreState) -> ImportResult {
        var result = ImportResult()
        guard enabled else { return result }
        var pairs = Set(pairsBefore.keys)
        for (ref, before) in rowsBefore {
            // The values are compared only for a row that was there before.
            let now = state.view(ref, values: before.alive)
            if !before.alive, now.alive { result.inserted.append(ref) }
            if before.alive, !now.alive { result.deleted.append(ref) }
            if before.alive != now.alive || before.generation != now.generation { pairs.formUnion(state.pairs(of: ref)) }
            if before.alive, now.alive {
                var changed: Set<String> = []
                for name in Set(before.values.keys).union(now.values.keys) where before.values[name] != now.values[name] { changed.insert(name) }
                if !changed.isEmpty { result.updated[ref] = changed }
            }
            if now.contested, !(before.contested && before.generation == now.generation) {
                let row = state.rowState(ref) ?? RowState()
                result.contests.append(DeleteContest(row: ref, deletedBy: row.deletes.sorted.map(\.device),
                                                     editedBy: row.unseenWriters, kept: now.alive))
            }
        }
        for pair in pairs {
            guard let relationship = state.schema.relationship(pair.relationship) else { continue }
            let from = RowRef(table: relationship.from, id: pair.from), to = RowRef(table: relationship.to, id: pair.to)
            let register = pairsBefore[pair] ?? state.pairState(pair)
            let wasShown = register.map { $0.present && shown(from, at: $0.fromGeneration, before: true, state) && shown(to, at: $0.toGeneration, before: true, state) } ?? false
            guard wasShown != state.isShown(pair) else { continue }
            // A row that appeared or vanished is reported as such; its pairs go with it.
            for (ref, end) in [(from, relationship.name), (to, relationship.inverse)]
            where shown(ref, at: nil, before: true, state) && shown(ref, at: nil, before: false, state) {
                result.updated[ref, default: []].insert(end)
            }
        }
        result.inserted.sort()
        result.deleted.sort()
        result.contests.sort { $0.row < $1.row }
        result.conflicts = conflicts
        return result
    }

    /// Whether `ref` existed (`before`) or exists, and at `generation` when one is given.
    private func shown(_ ref: RowRef, at generation: UInt64?, before: Bool, _ state: StoreState) -> Bool {
        let (alive, current): (Bool, UInt64) = if before, let view = rowsBefore[ref] { (view.alive, view.generation) }
            else { (state.isAlive(ref), state.rowState(ref)?.generation ?? 0) }
        return alive && (generation.map { $0 == current } ?? true)
    }
}
