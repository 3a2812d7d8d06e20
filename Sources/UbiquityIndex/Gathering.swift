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
    /// Matching items found so far: ``listed``, and those in ``found``.
    private(set) var found: Set<ItemID> = []
    /// Items found when the gathering began (a name hint that says all the predicate does),
    /// each once, kept as listed: a set of 97,707 ids took more time to build than the bitmap
    /// that puts them in order. Moved into ``found`` when a batch touches the gathering.
    private var listed: [ItemID] = []
    /// Items a batch touched during the gathering: already decided, skipped by the walk.
    var settled: Set<ItemID> = []

    var isComplete: Bool { next >= candidates.count }

    init(candidates: [ItemID], found: Set<ItemID> = []) {
        self.candidates = candidates
        self.found = found
    }

    /// A gathering complete from the start: `ids` (no repeats) are what it found.
    init(found ids: [ItemID]) {
        candidates = []
        listed = ids
    }

    mutating func insertFound(_ id: ItemID) {
        moveListed()
        found.insert(id)
    }

    mutating func removeFound(_ id: ItemID) {
        moveListed()
        found.remove(id)
    }

    private mutating func moveListed() {
        guard !listed.isEmpty else { return }
        found.formUnion(listed)
        listed = []
    }

    /// The found items as the name index listed them (in name order), when that is all there
    /// is: nothing was evaluated and no batch touched the gathering. Nil otherwise.
    var foundAsListed: [ItemID]? { found.isEmpty && candidates.isEmpty ? listed : nil }

    /// The found items in id order. Ids are slots of the index, dense below `bound`: a bitmap of
    /// `bound` bits (128 KB at a million slots) is filled and read in order, cheaper than
    /// sorting (an id at or past `bound`, which the index never hands out, gets the sort).
    func foundInIDOrder(below bound: Int) -> [ItemID] {
        var words = [UInt64](repeating: 0, count: (max(bound, 0) + 63) / 64)
        func mark(_ id: ItemID) -> Bool {
            let word = Int(id) / 64
            guard word < words.count else { return false }
            words[word] |= 1 << UInt64(id % 64)
            return true
        }
        for id in listed where !mark(id) { return Set(listed).union(found).sorted() }
        for id in found where !mark(id) { return Set(listed).union(found).sorted() }
        var ids: [ItemID] = []
        ids.reserveCapacity(listed.count + found.count)
        for (w, word) in words.enumerated() {
            var bits = word
            while bits != 0 {
                ids.append(ItemID(truncatingIfNeeded: w * 64 + bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
        return ids
    }
}
