/// The entries of a listing (``CrawlEntries``) grouped by the position of their parent, in
/// listing order: what a listing's diff walks directory by directory.
///
/// Two arrays (every position grouped by parent, and where each parent's group starts), counted
/// and filled in two passes: at a million entries a dictionary of arrays hashed every entry's
/// parent and grew an array per directory. An entry whose parent is outside the listing is in
/// no group (the walk from the root never reaches it, as before).
struct ListingChildren {
    /// Positions grouped by parent, each group in listing order.
    private let grouped: [Int32]
    /// The group of parent `p` is `grouped[starts[p + 1]..<starts[p + 2]]` (the root, -1, first).
    private let starts: [Int32]

    init(_ entries: CrawlEntries) {
        let count = entries.count
        var starts = [Int32](repeating: 0, count: count + 2)
        for i in 0..<count {
            let parent = Int(entries.parent(i))
            if parent >= -1 && parent < count { starts[parent + 2] &+= 1 }
        }
        for k in 1..<starts.count { starts[k] &+= starts[k - 1] }
        var next = starts
        var grouped = [Int32](repeating: 0, count: Int(starts[count + 1]))
        for i in 0..<count {
            let parent = Int(entries.parent(i))
            guard parent >= -1 && parent < count else { continue }
            grouped[Int(next[parent + 1])] = Int32(i)
            next[parent + 1] &+= 1
        }
        self.grouped = grouped
        self.starts = starts
    }

    /// The positions of the entries whose parent is `position` (-1: the listing's root), in
    /// listing order; none for a position outside the listing.
    subscript(position: Int32) -> ArraySlice<Int32> {
        let k = Int(position) + 1
        guard k >= 0, k + 1 < starts.count else { return [] }
        return grouped[Int(starts[k])..<Int(starts[k + 1])]
    }
}
