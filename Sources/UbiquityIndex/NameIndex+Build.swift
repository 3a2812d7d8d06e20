import UbiquityPredicate

/// Many names put in the name index at once: a saved index being restored (``build(_:names:)``)
/// and a crawl's part (``insert(_:names:)``), rather than one binary search and insertion per id.
///
/// Each bucket's ids are sorted by (name, id) in one go (``sortedByName(_:names:)``). Where every
/// name of a bucket is below the combining marks (``NameOrder``: their order is their bytes'
/// order), the names are laid end to end and sorted on their bytes by ``PathOrder`` (integer
/// keys, the answers' sort), and ids break the ties of equal names; other buckets are sorted
/// comparing names as ``NameOrder`` does. Measured on a saved index of a million entries: the
/// name index was most of the restore when built an id at a time.
extension NameIndex {
    /// Indexes `ids` (each once; none indexed yet) under their names in `names`.
    func build(_ ids: [ItemID], names: NameColumn) {
        // An ASCII name's bucket as an integer (its bytes lowercased, and how many), so that no
        // `String` is made and hashed per entry; other names by their bucket's `String`.
        // The ASCII buckets' ids in `ascii`, by a place looked up in `places` only when a name's
        // bucket is not the previous name's: most neighbours share one (a million lookups of a
        // dictionary of arrays were an eighth of the build).
        var places: [UInt32: Int] = [:]
        var ascii: [[ItemID]] = []
        var previous: (code: UInt32, place: Int)?
        var other: [String: [ItemID]] = [:]
        for id in ids {
            names.withUTF8(Int(id)) { name in
                if let code = Self.asciiBucketCode(name) {
                    let place: Int
                    if let previous, previous.code == code {
                        place = previous.place
                    } else if let known = places[code] {
                        place = known
                    } else {
                        place = ascii.count
                        places[code] = place
                        ascii.append([])
                    }
                    previous = (code, place)
                    ascii[place].append(id)
                } else {
                    other[NameIndex.bucket(utf8: name), default: []].append(id)
                }
            }
        }
        // A name read as a `String` may fall in an ASCII bucket too (`ABCé` in `abc`).
        for members in ascii {
            let key = names.withUTF8(Int(members[0])) { NameIndex.bucket(utf8: $0) }
            other[key, default: []].append(contentsOf: members)
        }
        insert(other, names: names)
    }

    /// The bucket of a name that ``bucket(utf8:)`` reads as ASCII, as an integer: its first
    /// ``bucketLength`` bytes lowercased, and their count in the top byte. Nil when that reads it
    /// as a `String`: a byte beyond ASCII among those or the one after them (`abc` + U+0301 is
    /// bucket `abć`, not `abc`).
    static func asciiBucketCode(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        if name.count > bucketLength && name[bucketLength] >= 0x80 { return nil }
        var code = UInt32(min(name.count, bucketLength)) << 24
        for k in 0..<min(name.count, bucketLength) {
            let byte = name[k]
            guard byte < 0x80 else { return nil }
            code |= UInt32(byte >= 65 && byte <= 90 ? byte | 0x20 : byte) << (8 * UInt32(k))
        }
        return code
    }

    /// `ids` in (name, id) order, each name's first bytes read once (decoded once, when
    /// compressed: ``NameColumn/Reader/copyPrefix(_:to:)``) and compared
    /// (``NameOrder/orderOfPrefixes(_:isWhole:_:isWhole:)``); names are read whole only where
    /// their first bytes do not decide.
    static func sortedByPrefixes(_ ids: [ItemID], _ names: NameColumn.Reader, onTwoThreads: Bool = false) -> [ItemID] {
        let stride = NameColumn.Reader.prefixCapacity
        let prefixes = UnsafeMutablePointer<UInt8>.allocate(capacity: ids.count * stride)
        defer { prefixes.deallocate() }
        // Each position's prefix length, and 0x80 when it is the whole name.
        let lengths = UnsafeMutablePointer<UInt8>.allocate(capacity: ids.count)
        defer { lengths.deallocate() }
        let order = UnsafeMutablePointer<Int>.allocate(capacity: ids.count)
        defer { order.deallocate() }
        return ids.withUnsafeBufferPointer { ids in
            @inline(__always) func precedes(_ x: Int, _ y: Int) -> Bool {
                let a = UnsafeBufferPointer(start: prefixes + x * stride, count: Int(lengths[x] & 0x7F))
                let b = UnsafeBufferPointer(start: prefixes + y * stride, count: Int(lengths[y] & 0x7F))
                let c = NameOrder.orderOfPrefixes(a, isWhole: lengths[x] & 0x80 != 0, b, isWhole: lengths[y] & 0x80 != 0)
                    ?? names.compare(Int(ids[x]), Int(ids[y]))
                return c != 0 ? c < 0 : ids[x] < ids[y]
            }
            /// Reads the prefixes of positions `range` and sorts them there.
            func sortRange(_ range: Range<Int>) {
                for k in range {
                    let (count, isWhole) = names.copyPrefix(Int(ids[k]), to: prefixes + k * stride)
                    lengths[k] = UInt8(truncatingIfNeeded: count) | (isWhole ? 0x80 : 0)
                    order[k] = k
                }
                var slice = UnsafeMutableBufferPointer(start: order + range.lowerBound, count: range.count)
                slice.sort(by: precedes)
            }
            guard onTwoThreads && ids.count >= minimumForTwoThreads else {
                sortRange(0..<ids.count)
                return (0..<ids.count).map { ids[order[$0]] }
            }
            // Each half on a core (they write disjoint positions and read only the names),
            // then merged.
            let middle = ids.count / 2
            SideThread.run({ sortRange(middle..<ids.count) }) { sortRange(0..<middle) }
            var sorted: [ItemID] = []
            sorted.reserveCapacity(ids.count)
            var i = 0, j = middle
            while i < middle && j < ids.count {
                if precedes(order[j], order[i]) {
                    sorted.append(ids[order[j]]); j += 1
                } else {
                    sorted.append(ids[order[i]]); i += 1
                }
            }
            while i < middle { sorted.append(ids[order[i]]); i += 1 }
            while j < ids.count { sorted.append(ids[order[j]]); j += 1 }
            return sorted
        }
    }

    /// Names from which a sort asked for on two threads takes them: below, a thread costs more
    /// than half the sort.
    static let minimumForTwoThreads = 4_096

    /// `ids` in (name, id) order: ``SortedIDs``' order.
    ///
    /// Compressed names (``NameCodec``) go by their prefixes (``sortedByPrefixes(_:_:)``), not
    /// end to end: laying them out meant decoding each whole, checking each scalar of it and
    /// copying it into fresh pages, which on a crawl of 100k names of 60–200 bytes took more of
    /// the engine's time than the sort, and their first bytes almost always decide.
    static func sortedByName(_ ids: [ItemID], names: NameColumn, onTwoThreads: Bool = false) -> [ItemID] {
        let anyCompressed = names.withReader { reader in ids.contains { reader.isCompressed(Int($0)) } }
        if anyCompressed {
            return names.withReader { Self.sortedByPrefixes(ids, $0, onTwoThreads: onTwoThreads) }
        }
        var bytes: [UInt8] = [], ends: [Int] = []
        ends.reserveCapacity(ids.count)
        // Room for all the names' bytes, guessed from the first ones' (a quarter more): grown by
        // doubling, the copies and the fresh pages were a fifth of a restore's name index.
        let sampled = ids.prefix(256).reduce(0) { $0 + names.withUTF8(Int($1)) { $0.count } }
        bytes.reserveCapacity(sampled / Swift.max(Swift.min(ids.count, 256), 1) * ids.count * 5 / 4 + 64)
        var simple = true
        for id in ids {
            names.withUTF8(Int(id)) { name in
                simple = simple && NameOrder.isAllStable(name)
                bytes.append(contentsOf: name)
            }
            guard simple else { break }
            ends.append(bytes.count)
        }
        guard simple else {
            return names.withReader { Self.sortedByPrefixes(ids, $0, onTwoThreads: onTwoThreads) }
        }
        // Equal names (one name in many directories) go by id: each run of them, found comparing
        // the laid-out bytes of neighbours, is sorted by id.
        return bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                let order = PathOrder(bytes: bytes, ends: ends)
                let positions = order.sorted()
                var sorted = positions.map { ids[$0] }
                var run = 0
                while run < positions.count {
                    var end = run + 1
                    while end < positions.count && order.compare(positions[run], positions[end], from: 0) == 0 { end += 1 }
                    if end - run > 1 { sorted[run..<end].sort() }
                    run = end
                }
                return sorted
            }
        }
    }
}
