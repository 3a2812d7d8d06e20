/// A query's gathering, done in slices so that the engine answers everyone else between them.
///
/// The candidates are listed once, at the start; the walk then evaluates them a slice at a time.
/// A batch applied between two slices is folded in at once (``LiveQuery/noteDuringGathering(_:_:)``):
/// every item it touched is decided against the index as it is now and marked settled, so the
/// walk skips it. When the walk ends, the found set is exactly what a gathering that ran in one
/// go after the last batch would have found.
///
/// ```
/// candidates: 1 2 3 4 5 6 7 8          (listed at the start)
/// slice 1:    ✓ ✗ ✓                    found {1, 3}
/// batch:            4 removed, 9 new   settled {4, 9}; 9 matches: found {1, 3, 9}
/// slice 2:          · ✗ ✓ ✓ ✗          4 skipped; found {1, 3, 9, 6, 7}
/// ```
struct Gathering {
    /// Items to evaluate, listed when the gathering began.
    let candidates: [ItemID]
    /// The first candidate not evaluated yet.
    var next = 0
    /// Matching items found so far.
    var found: Set<ItemID> = []
    /// Items a batch touched during the gathering: already decided, skipped by the walk.
    var settled: Set<ItemID> = []

    var isComplete: Bool { next >= candidates.count }
}
