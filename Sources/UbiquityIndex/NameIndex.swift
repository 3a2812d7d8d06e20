import UbiquityPredicate

/// Names → ids, for exact and prefix lookups without scanning every item.
///
/// Ids are grouped in buckets by the first three lowercased characters of their name; inside a
/// bucket they are kept sorted by (name, id) in chunks of at most ``SortedIDs/chunkLimit``. A
/// case-sensitive exact or prefix lookup is a binary search and a walk along one sorted run,
/// reading no name outside it; a case-insensitive one scans its bucket. Memory: 4 bytes per id
/// plus the chunk arrays; names are not copied (the index's `names` column is passed in).
final class NameIndex {
    static let bucketLength = 3

    private var buckets: [String: SortedIDs] = [:]

    static func bucket(_ name: String) -> String {
        var copy = name
        return copy.withUTF8 { bucket(utf8: $0) }
    }

    /// ``bucket(_:)`` of a name given as its UTF-8 bytes.
    static func bucket(utf8 name: UnsafeBufferPointer<UInt8>) -> String {
        // ASCII fast path: no Unicode case mapping needed, and the key written in one go (built
        // a scalar at a time, it cost about 7 ms of CPU on a crawl of 100k entries). The byte
        // after the key is looked at too: a combining mark there belongs to the key's last
        // character (`abc` + U+0301 is bucket `abć`).
        let count = min(name.count, bucketLength)
        for byte in name.prefix(bucketLength + 1) where byte >= 0x80 {
            return String(String(decoding: name, as: UTF8.self).lowercased().prefix(bucketLength))
        }
        return String(unsafeUninitializedCapacity: count) { key in
            for (i, byte) in name.prefix(count).enumerated() { key[i] = byte >= 65 && byte <= 90 ? byte | 0x20 : byte }
            return count
        }
    }

    func insert(_ name: String, _ id: ItemID, names: NameColumn) {
        buckets[NameIndex.bucket(name), default: SortedIDs()].insert(id, name: name, names: names)
    }

    /// Many names at once, each id with its bucket (``bucket(_:)``): each bucket's ids sorted, then
    /// put in in one sweep (``SortedIDs/insert(sorted:names:)``). The index is as the ids inserted
    /// one by one leave it. A large bucket is sorted on both cores: this is what a query waits for
    /// at the end of a first crawl (the names it reads filed then), with the other core idle.
    func insert(_ grouped: [String: [ItemID]], names: NameColumn) {
        for (key, ids) in grouped {
            buckets[key, default: SortedIDs()].insert(sorted: Self.sortedByName(ids, names: names, onTwoThreads: true), names: names)
        }
    }

    /// `sorted`, ids of bucket `key` already in (name, id) order, put in in one sweep.
    func insert(sorted: [ItemID], inBucket key: String, names: NameColumn) {
        buckets[key, default: SortedIDs()].insert(sorted: sorted, names: names)
    }

    /// The buckets as they are now, for a snapshot (``IndexSnapshot/View``): a copy that shares
    /// their chunks until the index next changes one.
    var bucketsForSnapshot: [String: SortedIDs] { buckets }

    /// Whether no id is indexed.
    var isEmpty: Bool { buckets.isEmpty }

    /// Takes `restored` as the buckets (``restore(_:named:slotCount:names:)``, which checked them).
    func take(_ restored: [String: SortedIDs]) { buckets = restored }

    /// How many ids the bucket `key` (``bucket(_:)``) holds.
    func count(inBucket key: String) -> Int { buckets[key]?.count ?? 0 }

    /// Every bucket's ids in their order (for tests that check it).
    var contents: [String: [ItemID]] {
        buckets.mapValues { $0.chunks.flatMap { $0 } }
    }

    /// `names[id]` must still hold `name`.
    func remove(_ name: String, _ id: ItemID, names: NameColumn) {
        let key = NameIndex.bucket(name)
        guard var sorted = buckets.removeValue(forKey: key) else { return }   // edit without copying
        sorted.remove(id, name: name, names: names)
        if !sorted.isEmpty { buckets[key] = sorted }
    }

    /// Calls `body` with every id whose name satisfies the constraint.
    func forEach(matching constraint: NameHint.Constraint, caseInsensitive: Bool, names: NameColumn,
                 _ body: (ItemID) -> Void) {
        let reach = NameBucketReach(constraint)
        let (text, isPrefix) = (reach.text, reach.isPrefix)
        let relevant: [SortedIDs]
        if reach.readsEveryBucketStartingWithKey {
            relevant = buckets.filter { reach.reaches($0.key) }.map(\.value)
        } else {
            relevant = buckets[reach.key].map { [$0] } ?? []
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
