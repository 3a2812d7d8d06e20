import UbiquityPredicate

/// Names → ids, for exact and prefix lookups without scanning every item.
///
/// Ids are grouped in buckets by the first three lowercased characters of their name; inside a
/// bucket they are kept sorted by (name, id) in chunks of at most ``SortedIDs/chunkLimit``. A
/// case-sensitive exact or prefix lookup is a binary search and a walk along one sorted run,
/// reading no name outside it; a case-insensitive one scans its bucket. Memory: 4 bytes per id
/// plus the chunk arrays; names are not copied (the index's `names` array is passed in).
final class NameIndex {
    static let bucketLength = 3

    private var buckets: [String: SortedIDs] = [:]

    static func bucket(_ name: String) -> String {
        // ASCII fast path: no Unicode case mapping needed.
        var key = ""
        var count = 0
        for byte in name.utf8 {
            guard byte < 0x80 else { return String(name.lowercased().prefix(bucketLength)) }
            if count == bucketLength { break }
            key.unicodeScalars.append(Unicode.Scalar(byte >= 65 && byte <= 90 ? byte | 0x20 : byte))
            count += 1
        }
        return key
    }

    func insert(_ name: String, _ id: ItemID, names: [String]) {
        buckets[NameIndex.bucket(name), default: SortedIDs()].insert(id, name: name, names: names)
    }

    /// `names[id]` must still hold `name`.
    func remove(_ name: String, _ id: ItemID, names: [String]) {
        let key = NameIndex.bucket(name)
        guard var sorted = buckets.removeValue(forKey: key) else { return }   // edit without copying
        sorted.remove(id, name: name, names: names)
        if !sorted.isEmpty { buckets[key] = sorted }
    }

    /// Calls `body` with every id whose name satisfies the constraint.
    func forEach(matching constraint: NameHint.Constraint, caseInsensitive: Bool, names: [String],
                 _ body: (ItemID) -> Void) {
        let text: String, isPrefix: Bool
        switch constraint {
        case .exact(let s): (text, isPrefix) = (s, false)
        case .prefix(let s): (text, isPrefix) = (s, true)
        }
        let key = NameIndex.bucket(text)
        let relevant: [SortedIDs]
        if key.count == NameIndex.bucketLength || !isPrefix {
            relevant = buckets[key].map { [$0] } ?? []
        } else {
            relevant = buckets.filter { $0.key.hasPrefix(key) }.map(\.value)
        }
        if caseInsensitive {
            let test = NameTest(text.lowercased(), prefix: isPrefix, caseInsensitive: true)
            for sorted in relevant {
                sorted.forEach(from: nil, names: names) { id, name in
                    if test.accepts(name) { body(id) }
                    return true
                }
            }
            return
        }
        // The matches form one run in name order: [text, upper). When the run's end can be
        // named, find both ends by binary search and read no name in between.
        if let upper = NameIndex.upperBound(of: text, prefix: isPrefix) {
            for sorted in relevant { sorted.forEach(from: text, before: upper, names: names, body) }
            return
        }
        let test = NameTest(text, prefix: isPrefix, caseInsensitive: false)
        for sorted in relevant {
            // Sorted by name: the matches are one run starting at the first name ≥ text.
            sorted.forEach(from: text, names: names) { id, name in
                if test.accepts(name) {
                    body(id)
                    return true
                }
                // Past the run? Names that sort after every possible match end the walk.
                return !test.isPastRun(name)
            }
        }
    }
}

extension NameIndex {
    /// The smallest name after every name equal to `text` (exact) or starting with it (prefix),
    /// when it can be written: `Item_` → `Item``. Nil for non-ASCII prefixes.
    ///
    /// Byte order equals the index's name order for these names. A name whose first character
    /// after the prefix is a combining mark counts as starting with the prefix here.
    static func upperBound(of text: String, prefix: Bool) -> String? {
        if !prefix { return text + "\u{0}" }
        var bytes = Array(text.utf8)
        guard let last = bytes.last, bytes.allSatisfy({ $0 < 0x80 }), last < 0x7F else { return nil }
        bytes[bytes.count - 1] = last + 1
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Ids sorted by (name, id), stored as a list of small sorted chunks so that inserting into a
/// bucket of 100,000 names moves at most one chunk.
struct SortedIDs {
    static let chunkLimit = 512
    private(set) var chunks: [[ItemID]] = []

    var isEmpty: Bool { chunks.isEmpty }

    @inline(__always)
    private static func less(_ a: ItemID, _ aName: String, _ b: ItemID, _ bName: String) -> Bool {
        aName != bName ? aName < bName : a < b
    }

    /// The first chunk whose last element is ≥ (name, id), or the last chunk.
    private func chunkIndex(name: String, id: ItemID, names: [String]) -> Int {
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            let last = chunks[mid][chunks[mid].count - 1]
            if SortedIDs.less(last, names[Int(last)], id, name) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Position in `chunk` of the first element ≥ (name, id).
    private static func position(in chunk: [ItemID], name: String, id: ItemID, names: [String]) -> Int {
        var low = 0, high = chunk.count
        while low < high {
            let mid = (low + high) / 2
            if less(chunk[mid], names[Int(chunk[mid])], id, name) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    mutating func insert(_ id: ItemID, name: String, names: [String]) {
        guard !chunks.isEmpty else {
            chunks = [[id]]
            return
        }
        let c = chunkIndex(name: name, id: id, names: names)
        let p = SortedIDs.position(in: chunks[c], name: name, id: id, names: names)
        chunks[c].insert(id, at: p)
        if chunks[c].count > SortedIDs.chunkLimit {
            let upper = Array(chunks[c][(SortedIDs.chunkLimit / 2)...])
            chunks[c].removeSubrange((SortedIDs.chunkLimit / 2)...)
            chunks.insert(upper, at: c + 1)
        }
    }

    mutating func remove(_ id: ItemID, name: String, names: [String]) {
        guard !chunks.isEmpty else { return }
        let c = chunkIndex(name: name, id: id, names: names)
        let p = SortedIDs.position(in: chunks[c], name: name, id: id, names: names)
        guard p < chunks[c].count, chunks[c][p] == id else { return }
        chunks[c].remove(at: p)
        if chunks[c].isEmpty { chunks.remove(at: c) }
    }

    /// Every id whose name is in [start, end), located by two binary searches; names inside
    /// the range are never read.
    func forEach(from start: String, before end: String, names: [String], _ body: (ItemID) -> Void) {
        guard !chunks.isEmpty else { return }
        var c = chunkIndex(name: start, id: 0, names: names)
        var p = SortedIDs.position(in: chunks[c], name: start, id: 0, names: names)
        let endChunk = chunkIndex(name: end, id: 0, names: names)
        let endPosition = SortedIDs.position(in: chunks[endChunk], name: end, id: 0, names: names)
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
    func forEach(from start: String?, names: [String], _ body: (ItemID, String) -> Bool) {
        guard !chunks.isEmpty else { return }
        var c = 0, p = 0
        if let start {
            c = chunkIndex(name: start, id: 0, names: names)
            p = SortedIDs.position(in: chunks[c], name: start, id: 0, names: names)
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

/// The name test of a hint: byte comparison for ASCII, Unicode-correct otherwise.
struct NameTest {
    let text: String
    let bytes: [UInt8]
    let prefix: Bool
    let caseInsensitive: Bool
    let asciiText: Bool

    init(_ text: String, prefix: Bool, caseInsensitive: Bool) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.prefix = prefix
        self.caseInsensitive = caseInsensitive
        self.asciiText = bytes.allSatisfy { $0 < 0x80 }
    }

    func accepts(_ name: String) -> Bool {
        if asciiText, let decided = name.utf8.withContiguousStorageIfAvailable({ decide($0) }), let decided {
            return decided
        }
        let candidate = caseInsensitive ? name.lowercased() : name
        return prefix ? candidate.hasPrefix(text) : candidate == text
    }

    /// In a case-sensitive walk sorted by name: has the walk left the run of possible matches?
    /// True once the name no longer starts with the text's bytes and sorts after it.
    func isPastRun(_ name: String) -> Bool {
        if !asciiText { return false }          // be conservative: walk the bucket
        var it = name.utf8.makeIterator()
        for b in bytes {
            guard let n = it.next() else { return false }
            if n != b { return n > b }
        }
        return !prefix          // exact: a longer name with the same start is past the run
    }

    /// Decides on bytes when every compared byte is ASCII; nil defers to the Unicode path.
    private func decide(_ s: UnsafeBufferPointer<UInt8>) -> Bool? {
        let n = bytes.count
        if s.count < n { return s.allSatisfy { $0 < 0x80 } ? false : nil }
        for i in 0..<n {
            let b = s[i]
            if b >= 0x80 { return nil }
            let folded = caseInsensitive && b >= 65 && b <= 90 ? b | 0x20 : b
            if folded != bytes[i] { return false }
        }
        if prefix { return s.count == n || s[n] < 0x80 ? true : nil }
        return s.count == n ? true : (s[n...].allSatisfy { $0 < 0x80 } ? false : nil)
    }
}
