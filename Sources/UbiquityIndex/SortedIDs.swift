
/// Ids sorted by (name, id), stored as a list of small sorted chunks so that inserting into a
/// bucket of 100,000 names moves at most one chunk.
struct SortedIDs {
    static let chunkLimit = 512
    private(set) var chunks: [[ItemID]] = []

    var isEmpty: Bool { chunks.isEmpty }

    init() {}

    /// Ids already in (name, id) order, cut into chunks three quarters full: room for inserts
    /// before the first split.
    init(sorted ids: [ItemID]) {
        let size = Self.chunkLimit * 3 / 4
        chunks.reserveCapacity((ids.count + size - 1) / size)
        var start = 0
        while start < ids.count {
            let end = min(start + size, ids.count)
            chunks.append(Array(ids[start..<end]))
            start = end
        }
    }

    /// Whether (names[a], a) sorts before (key, b), the key's UTF-8 in `key` (``NameOrder``).
    @inline(__always)
    private static func less(_ a: ItemID, _ b: ItemID, _ key: Key, names: NameColumn) -> Bool {
        let c = names.withUTF8(Int(a)) { NameOrder.compare($0, key.bytes, key.name, bIsSimple: key.isSimple) }
        return c != 0 ? c < 0 : a < b
    }

    /// A name searched for: its bytes, read once per search.
    private struct Key {
        let name: String
        let bytes: UnsafeBufferPointer<UInt8>
        let isSimple: Bool
    }

    private static func withKey<R>(_ name: String, _ body: (Key) -> R) -> R {
        var copy = name
        return copy.withUTF8 { body(Key(name: name, bytes: $0, isSimple: NameOrder.isBelowCombiningMarks($0))) }
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

    mutating func remove(_ id: ItemID, name: String, names: NameColumn) {
        guard !chunks.isEmpty else { return }
        let (c, p) = locate(name: name, id: id, names: names)
        guard p < chunks[c].count, chunks[c][p] == id else { return }
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
