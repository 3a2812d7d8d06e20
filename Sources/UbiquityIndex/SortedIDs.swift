import UbiquityPredicate

import CUbiquitySystem

/// Ids sorted by (name, id), stored as a list of small sorted chunks so that inserting into a
/// bucket of 100,000 names moves at most one chunk.
///
/// Many ids at once (a crawl's part: ``insert(sorted:names:)``) go in sorted, in one sweep over
/// the chunks: a chunk that takes many of them is merged with them in one pass, reading its
/// names in order with the next ones asked for ahead, where inserting them one by one searched it
/// once each, every name a likely cache miss.
struct SortedIDs {
    static let chunkLimit = 512
    private(set) var chunks: [[ItemID]] = []
    /// How many ids the chunks hold.
    private(set) var count = 0

    var isEmpty: Bool { chunks.isEmpty }

    /// Whether (names[a], a) sorts before (key, b), the key's UTF-8 in `key` (``NameOrder``).
    @inline(__always)
    private static func less(_ a: ItemID, _ b: ItemID, _ key: Key, names: NameColumn) -> Bool {
        let c = names.withUTF8(Int(a)) { NameOrder.compare($0, key.bytes, bIsSimple: key.isSimple) }
        return c != 0 ? c < 0 : a < b
    }

    /// A name searched for: its bytes, read once per search.
    private struct Key {
        let bytes: UnsafeBufferPointer<UInt8>
        let isSimple: Bool
    }

    private static func withKey<R>(_ name: String, _ body: (Key) -> R) -> R {
        var copy = name
        return copy.withUTF8 { body(Key(bytes: $0, isSimple: NameOrder.isBelowCombiningMarks($0))) }
    }

    /// The first chunk whose last element is ≥ (name, id), or the last chunk.
    private func chunkIndex(key: Key, id: ItemID, names: NameColumn) -> Int {
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            let last = chunks[mid][chunks[mid].count - 1]
            if SortedIDs.less(last, id, key, names: names) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Position in `chunk` of the first element ≥ (name, id).
    private static func position(in chunk: [ItemID], key: Key, id: ItemID, names: NameColumn) -> Int {
        var low = 0, high = chunk.count
        while low < high {
            let mid = (low + high) / 2
            if less(chunk[mid], id, key, names: names) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The chunk and position of the first element ≥ (name, id), the name's bytes read once.
    private func locate(name: String, id: ItemID, names: NameColumn) -> (chunk: Int, position: Int) {
        SortedIDs.withKey(name) { key in
            let c = chunkIndex(key: key, id: id, names: names)
            return (c, SortedIDs.position(in: chunks[c], key: key, id: id, names: names))
        }
    }

    mutating func insert(_ id: ItemID, name: String, names: NameColumn) {
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[id]]
            return
        }
        let (c, p) = locate(name: name, id: id, names: names)
        // A full chunk grows by a quarter, not double, and a split leaves two exact halves: a
        // chunk's capacity stays within a quarter of its count (doubling left 2–4x, 6.5 bytes
        // per id at 100k entries).
        if chunks[c].count == chunks[c].capacity {
            chunks[c].reserveCapacity(chunks[c].count + max(chunks[c].count / 4, 4))
        }
        chunks[c].insert(id, at: p)
        if chunks[c].count > SortedIDs.chunkLimit {
            let half = SortedIDs.chunkLimit / 2
            let upper = Array(chunks[c][half...])
            chunks[c] = Array(chunks[c][..<half])
            chunks.insert(upper, at: c + 1)
        }
    }

    /// Whether (names[a], a) sorts before (names[b], b).
    @inline(__always)
    static func precedes(_ a: ItemID, _ b: ItemID, _ names: NameColumn.Reader) -> Bool {
        let c = names.compare(Int(a), Int(b))
        return c != 0 ? c < 0 : a < b
    }

    /// A chunk takes its new ids by a merge (one pass over it) when it takes at least one per this
    /// many of its ids; fewer are searched for one by one (a merge would read every name of the
    /// chunk for a few: at a million entries a part of 8,192 puts about 4 in each chunk).
    static let mergeRatio = 16
    /// How far ahead a merge asks for the names it will read.
    static let prefetchDistance = 8

    /// Inserts `new`, in (name, id) order (``precedes(_:_:_:)``) and none of them here yet: the
    /// same chunks' contents as inserting them one by one, in one sweep.
    mutating func insert(sorted new: [ItemID], names: NameColumn) {
        guard !new.isEmpty else { return }
        count += new.count
        names.withReader { reader in
            if chunks.isEmpty {
                chunks = [[]]
            }
            var c = 0
            var j = 0
            while j < new.count {
                // The chunk `new[j]` goes in: the first whose last id is after it, or the last.
                while c < chunks.count - 1, SortedIDs.precedes(chunks[c][chunks[c].count - 1], new[j], reader) { c += 1 }
                // The run of new ids that go in the same chunk.
                var end = j + 1
                if c < chunks.count - 1 {
                    let last = chunks[c][chunks[c].count - 1]
                    while end < new.count, SortedIDs.precedes(new[end], last, reader) { end += 1 }
                } else {
                    end = new.count
                }
                let pieces = SortedIDs.merged(chunks[c], new[j..<end], reader)
                chunks.replaceSubrange(c...c, with: pieces)
                c += pieces.count - 1
                j = end
            }
        }
    }

    /// `chunk` with `run` (both sorted, none in both) in it, in chunks of at most ``chunkLimit``.
    private static func merged(_ chunk: [ItemID], _ run: ArraySlice<ItemID>, _ names: NameColumn.Reader) -> [[ItemID]] {
        var out: [ItemID] = []
        out.reserveCapacity(chunk.count + run.count)
        if run.count * mergeRatio < chunk.count {
            // A few: each searched for, as one insertion does (no name read but the search's).
            out.append(contentsOf: chunk)
            var low = 0
            for id in run {
                var high = out.count
                while low < high {
                    let mid = (low + high) / 2
                    if precedes(out[mid], id, names) { low = mid + 1 } else { high = mid }
                }
                out.insert(id, at: low)
                low += 1
            }
        } else {
            // Each side's current name is read once, its first bytes kept (a compressed one
            // decoded that far): comparing two names afresh at every step read the one that
            // stayed again, and for compressed names that decoding was most of the merge.
            let stride = NameColumn.Reader.prefixCapacity
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * stride) { buffer in
                let x = buffer.baseAddress!, y = x + stride
                var i = 0
                var k = run.startIndex
                var xPrefix = i < chunk.count ? names.copyPrefix(Int(chunk[i]), to: x) : (count: 0, isWhole: true)
                var yPrefix = k < run.endIndex ? names.copyPrefix(Int(run[k]), to: y) : (count: 0, isWhole: true)
                while i < chunk.count && k < run.endIndex {
                    if i + prefetchDistance < chunk.count { ubq_prefetch(names.address(Int(chunk[i + prefetchDistance]))) }
                    let a = chunk[i], b = run[k]
                    let c = NameOrder.orderOfPrefixes(UnsafeBufferPointer(start: x, count: xPrefix.count), isWhole: xPrefix.isWhole,
                                                      UnsafeBufferPointer(start: y, count: yPrefix.count), isWhole: yPrefix.isWhole)
                        ?? names.compare(Int(a), Int(b))
                    if c < 0 || (c == 0 && a < b) {
                        out.append(a)
                        i += 1
                        if i < chunk.count { xPrefix = names.copyPrefix(Int(chunk[i]), to: x) }
                    } else {
                        out.append(b)
                        k += 1
                        if k < run.endIndex { yPrefix = names.copyPrefix(Int(run[k]), to: y) }
                    }
                }
                out.append(contentsOf: chunk[i...])
                out.append(contentsOf: run[k...])
            }
        }
        guard out.count > chunkLimit else { return [out] }
        // Split into equal pieces of at most three quarters of the limit: room for inserts after.
        let target = chunkLimit * 3 / 4
        let pieces = (out.count + target - 1) / target
        var result: [[ItemID]] = []
        result.reserveCapacity(pieces)
        var start = 0
        for p in 0..<pieces {
            let stop = out.count * (p + 1) / pieces
            result.append(Array(out[start..<stop]))
            start = stop
        }
        return result
    }

    mutating func remove(_ id: ItemID, name: String, names: NameColumn) {
        guard !chunks.isEmpty else { return }
        let (c, p) = locate(name: name, id: id, names: names)
        guard p < chunks[c].count, chunks[c][p] == id else { return }
        count -= 1
        chunks[c].remove(at: p)
        if chunks[c].isEmpty { chunks.remove(at: c) }
    }

    /// Every id whose name is in [start, end), located by two binary searches; names inside
    /// the range are never read.
    func forEach(from start: String, before end: String, names: NameColumn, _ body: (ItemID) -> Void) {
        guard !chunks.isEmpty else { return }
        var (c, p) = locate(name: start, id: 0, names: names)
        let (endChunk, endPosition) = locate(name: end, id: 0, names: names)
        while c < endChunk || (c == endChunk && p < endPosition) {
            let chunk = chunks[c]
            let stop = c == endChunk ? endPosition : chunk.count
            while p < stop {
                body(chunk[p])
                p += 1
            }
            c += 1
            p = 0
        }
    }

    /// Walks ids in name order, from the first name ≥ `start` (or the beginning), while `body`
    /// returns true.
    func forEach(from start: String?, names: NameColumn, _ body: (ItemID, String) -> Bool) {
        guard !chunks.isEmpty else { return }
        var c = 0, p = 0
        if let start {
            (c, p) = locate(name: start, id: 0, names: names)
        }
        while c < chunks.count {
            let chunk = chunks[c]
            while p < chunk.count {
                let id = chunk[p]
                if !body(id, names[Int(id)]) { return }
                p += 1
            }
            c += 1
            p = 0
        }
    }
}
