/// What the rows and pairs an import touches looked like before it, so that the import can
/// say what it changed for a client (``ImportResult``) without diffing the whole store.
struct ImportTracker {
    /// A row as a client sees it, plus whether a delete contest stands at its generation.
    struct RowView: Equatable {
        var alive: Bool
        var generation: UInt64
        var values: [String: StoreValue]
        var contested: Bool
    }

    /// Whether anything is tracked at all: the writer's working copy needs no result.
    let enabled: Bool
    private(set) var rowsBefore: [RowRef: RowView] = [:]
    private(set) var pairsBefore: [PairKey: Bool] = [:]
    var conflicts: [ColumnConflict] = []

    init(enabled: Bool = true) { self.enabled = enabled }

    /// Records `ref` and the pairs it is in as they are now, unless already recorded.
    mutating func touch(_ ref: RowRef, in state: StoreState) {
        guard enabled, rowsBefore[ref] == nil else { return }
        rowsBefore[ref] = state.view(ref)
        for pair in state.pairs(of: ref) { touch(pair, in: state) }
    }

    mutating func touch(_ pair: PairKey, in state: StoreState) {
        guard enabled, pairsBefore[pair] == nil else { return }
        pairsBefore[pair] = state.isShown(pair)
    }

    /// Compares what was recorded with `state` now.
    func result(_ state: StoreState) -> ImportResult {
        var result = ImportResult()
        guard enabled else { return result }
        var after: [RowRef: RowView] = [:]
        for (ref, before) in rowsBefore {
            let now = state.view(ref)
            after[ref] = now
            if !before.alive, now.alive { result.inserted.append(ref) }
            if before.alive, !now.alive { result.deleted.append(ref) }
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
        for (pair, wasShown) in pairsBefore where state.isShown(pair) != wasShown {
            guard let relationship = state.schema.relationship(pair.relationship) else { continue }
            for (ref, end) in [(RowRef(table: relationship.from, id: pair.from), relationship.name),
                               (RowRef(table: relationship.to, id: pair.to), relationship.inverse)] {
                // A row that appeared or vanished is reported as such; its pairs go with it.
                let before = rowsBefore[ref]?.alive ?? state.isAlive(ref)
                let now = after[ref]?.alive ?? state.isAlive(ref)
                if before, now { result.updated[ref, default: []].insert(end) }
            }
        }
        result.inserted.sort()
        result.deleted.sort()
        result.contests.sort { $0.row < $1.row }
        result.conflicts = conflicts
        return result
    }
}
