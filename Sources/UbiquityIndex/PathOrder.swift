import UbiquityPredicate

/// The byte order of strings in one buffer (`memcmp`'s order, a string that is a prefix of
/// another first): how result paths are sorted (``PathTable``).
///
/// A multikey quicksort on cached keys. Each string's next fifteen bytes are read once into a
/// two-word key beside its position; a three-way partition on those keys then sorts the
/// positions with integer comparisons only, reading no path bytes. Only the strings that tie on
/// the pivot's key (one directory's entries, further down) read their next fifteen bytes.
/// Groups of a few strings finish with an insertion sort that compares keys, then the rest with
/// `memcmp`.
///
/// Why not a byte-at-a-time radix sort: paths share long runs (their directories) and branch
/// into few distinct bytes, so a radix pass per byte would read every byte of every path and
/// clear 256 counters per pass. Reading the path bytes is what costs (each read is a cache miss
/// more often than not): fifteen bytes per key read them fifteen times more rarely, and a
/// partition costs only its group's length in integer comparisons. The work is a stack of ranges, not recursion: paths may be
/// 4096 bytes long and trees deep. A group that partitions badly for too long (inputs chosen to
/// defeat the pivot) is sorted on its keys by the standard library's `O(n log n)` sort instead.
///
/// ```
/// strings: "a/x" "a.b" "a" "a0"   keys at 0: "a/x"·3 "a.b"·3 "a"·1 "a0"·2 (bytes·left)
/// order:   "a" < "a.b" < "a/x" < "a0"        ("." 0x2E < "/" 0x2F < "0" 0x30)
/// ```
struct PathOrder {
    /// Every string, one after another (or anywhere, given ``starts``).
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where string `i` starts in `bytes`; nil: where string `i - 1` ends.
    let starts: UnsafeBufferPointer<Int>?
    /// Where string `i` ends in `bytes`.
    let ends: UnsafeBufferPointer<Int>
    /// Partitions allowed per level of a group's size (its bit count) before the group counts
    /// as defeating the pivot; zero sends every group to the fallback (for tests).
    var partitionsPerLevel = 2

    /// Path bytes per key: its sixteenth byte holds how many remained, so that no byte value
    /// (zero included) is mistaken for the end of a string.
    static let keyBytes = 15
    /// The largest group finished by insertion sort.
    static let insertionLimit = 16

    /// Strings laid end to end: string `i` is `bytes[ends[i - 1]..<ends[i]]` (from 0 for the first).
    init(bytes: UnsafeBufferPointer<UInt8>, ends: UnsafeBufferPointer<Int>) {
        self.bytes = bytes
        starts = nil
        self.ends = ends
    }

    /// Strings anywhere in `bytes`: string `i` is `bytes[starts[i]..<ends[i]]` (as many starts as ends).
    init(bytes: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int>, ends: UnsafeBufferPointer<Int>) {
        self.bytes = bytes
        self.starts = starts
        self.ends = ends
    }

    var count: Int { ends.count }

    @inline(__always)
    func start(_ i: Int) -> Int {
        if let starts { return starts[i] }
        return i == 0 ? 0 : ends[i - 1]
    }

    /// The positions `0..<count` in byte order of their strings.
    ///
    /// - Parameter depth: How many leading bytes every string shares (they need no comparing);
    ///   at most the shortest string's length.
    func sorted(from depth: Int = 0) -> [Int] {
        var positions = Array(0..<count)
        guard count > 1 else { return positions }
        let keys = UnsafeMutableBufferPointer<Key>.allocate(capacity: count)
        defer { keys.deallocate() }
        positions.withUnsafeMutableBufferPointer { sort($0, keys, depth: depth) }
        return positions
    }

    /// Up to fifteen bytes of a string, big-endian across the two words, then how many bytes
    /// were left (16 for more than fifteen): tuples compare as the bytes do.
    typealias Key = (high: UInt64, low: UInt64)

    /// String `i`'s fifteen bytes from `depth`, zeros past its end, and how many were left.
    /// Keys compare as the strings do on those bytes, a string that ends there first; equal keys
    /// that say fifteen or fewer were left are equal strings.
    @inline(__always)
    func key(_ i: Int, at depth: Int) -> Key {
        let from = start(i) + depth
        let left = ends[i] - from
        guard left > 0, let base = bytes.baseAddress else { return (0, 0) }
        let kept = min(left, Self.keyBytes)
        var high: UInt64 = 0, low: UInt64 = 0
        if from + 16 <= bytes.count {
            // Two unaligned loads; the bytes past the string (the next one's) are masked off.
            high = UInt64(bigEndian: UnsafeRawPointer(base + from).loadUnaligned(as: UInt64.self))
            low = UInt64(bigEndian: UnsafeRawPointer(base + from + 8).loadUnaligned(as: UInt64.self))
            if kept < 8 {
                high &= ~UInt64(0) << (64 - 8 * kept)
                low = 0
            } else if kept == 8 {
                low = 0
            } else {
                low &= ~UInt64(0) << (128 - 8 * kept)
            }
        } else {
            for k in 0..<kept {
                let byte = UInt64(base[from + k])
                if k < 8 { high |= byte << (56 - 8 * k) } else { low |= byte << (120 - 8 * k) }
            }
        }
        return (high, low | UInt64(min(left, Self.keyBytes + 1)))
    }

    /// The order of strings `i` and `j` (negative, zero or positive, as `memcmp`) from `depth`,
    /// where they are known to agree before it.
    func compare(_ i: Int, _ j: Int, from depth: Int) -> Int {
        let a = start(i) + depth, b = start(j) + depth
        return ByteOrder.compare(UnsafeBufferPointer(rebasing: bytes[a..<ends[i]]), UnsafeBufferPointer(rebasing: bytes[b..<ends[j]]))
    }

    /// A range of positions still to sort, all agreeing up to `depth`; `keyed` when `keys`
    /// already holds their keys at `depth`; `budget`: partitions left before the fallback.
    private typealias Work = (low: Int, high: Int, depth: Int, keyed: Bool, budget: Int)

    /// Sorts `positions` (any of `0..<count`, all agreeing up to `depth`) in place; `keys`, at
    /// least as long, is scratch space kept parallel to them: many small groups sorted one by
    /// one share one.
    func sort(_ positions: UnsafeMutableBufferPointer<Int>, _ keys: UnsafeMutableBufferPointer<Key>, depth: Int) {
        if isInOrder(positions, from: depth) { return }
        if positions.count <= Self.insertionLimit {
            // A small group needs no stack (an allocation).
            for k in positions.indices { keys[k] = key(positions[k], at: depth) }
            insertionSort(positions, keys, 0, positions.count, depth: depth)
            return
        }
        var stack: [Work] = [(0, positions.count, depth, false, budget(positions.count))]
        while let work = stack.popLast() {
            let low = work.low, high = work.high, depth = work.depth
            if !work.keyed {
                for k in low..<high { keys[k] = key(positions[k], at: depth) }
            }
            if high - low <= Self.insertionLimit {
                insertionSort(positions, keys, low, high, depth: depth)
                continue
            }
            if work.budget <= 0 {
                fallbackSort(positions, keys, low, high, depth: depth, stack: &stack)
                continue
            }
            // Three-way partition: [low, less) below the pivot, [less, greater) equal to it,
            // [greater, high) above it.
            let pivot = Self.pivot(keys, low, high)
            var less = low, k = low, greater = high
            while k < greater {
                let key = keys[k]
                if key < pivot {
                    swapAt(positions, keys, k, less)
                    less += 1
                    k += 1
                } else if key > pivot {
                    greater -= 1
                    swapAt(positions, keys, k, greater)
                } else {
                    k += 1
                }
            }
            if less - low > 1 { stack.append((low, less, depth, true, work.budget - 1)) }
            if high - greater > 1 { stack.append((greater, high, depth, true, work.budget - 1)) }
            if greater - less > 1 && Self.continues(pivot) {
                stack.append((less, greater, depth + Self.keyBytes, false, budget(greater - less)))
            }
        }
    }

    /// Whether `positions` are already in order: one pass that stops at the first pair out of
    /// order. Candidates often come from the name index in name order, and a directory's
    /// children then need no sorting (one directory of 100k `Item_*` results spent 17% of the
    /// answer sorting them again); input in any other order costs a comparison or two.
    private func isInOrder(_ positions: UnsafeMutableBufferPointer<Int>, from depth: Int) -> Bool {
        guard positions.count > 1 else { return true }
        for k in 1..<positions.count where compare(positions[k - 1], positions[k], from: depth) > 0 { return false }
        return true
    }

    /// Whether strings with this key go on past its bytes.
    @inline(__always)
    private static func continues(_ key: Key) -> Bool { key.low & 0xFF > UInt64(keyBytes) }

    /// Partitions allowed for a group of `count` (and the groups split from it) before it counts
    /// as defeating the pivot: about twice the depth of a balanced partitioning.
    private func budget(_ count: Int) -> Int { partitionsPerLevel * (Int.bitWidth - count.leadingZeroBitCount + 2) }

    @inline(__always)
    private func swapAt(_ positions: UnsafeMutableBufferPointer<Int>, _ keys: UnsafeMutableBufferPointer<Key>, _ a: Int, _ b: Int) {
        positions.swapAt(a, b)
        keys.swapAt(a, b)
    }

    /// The median of three keys, or of three medians of three in a large group.
    private static func pivot(_ keys: UnsafeMutableBufferPointer<Key>, _ low: Int, _ high: Int) -> Key {
        let count = high - low, middle = low + count / 2, last = high - 1
        guard count > 128 else { return median(keys[low], keys[middle], keys[last]) }
        let step = count / 8
        return median(median(keys[low], keys[low + step], keys[low + 2 * step]),
                      median(keys[middle - step], keys[middle], keys[middle + step]),
                      median(keys[last - 2 * step], keys[last - step], keys[last]))
    }

    private static func median(_ a: Key, _ b: Key, _ c: Key) -> Key {
        if a < b { return b < c ? b : (a < c ? c : a) }
        return a < c ? a : (b < c ? c : b)
    }

    /// Whether the string at `a` (key `keyA`) sorts before the one at `b`, both from `depth`.
    @inline(__always)
    private func precedes(_ a: Int, _ keyA: Key, _ b: Int, _ keyB: Key, depth: Int) -> Bool {
        if keyA != keyB { return keyA < keyB }
        return Self.continues(keyA) && compare(a, b, from: depth + Self.keyBytes) < 0
    }

    private func insertionSort(_ positions: UnsafeMutableBufferPointer<Int>, _ keys: UnsafeMutableBufferPointer<Key>,
                               _ low: Int, _ high: Int, depth: Int) {
        guard high - low > 1 else { return }
        for k in (low + 1)..<high {
            let position = positions[k], key = keys[k]
            var hole = k
            while hole > low && precedes(position, key, positions[hole - 1], keys[hole - 1], depth: depth) {
                positions[hole] = positions[hole - 1]
                keys[hole] = keys[hole - 1]
                hole -= 1
            }
            positions[hole] = position
            keys[hole] = key
        }
    }

    /// Sorts a group on its keys with the standard library's sort, and leaves each run of equal
    /// keys that goes on for the next fifteen bytes.
    private func fallbackSort(_ positions: UnsafeMutableBufferPointer<Int>, _ keys: UnsafeMutableBufferPointer<Key>,
                              _ low: Int, _ high: Int, depth: Int, stack: inout [Work]) {
        var pairs = (low..<high).map { (key: keys[$0], position: positions[$0]) }
        pairs.sort { $0.key < $1.key }
        for (offset, pair) in pairs.enumerated() {
            keys[low + offset] = pair.key
            positions[low + offset] = pair.position
        }
        var run = low
        while run < high {
            var end = run + 1
            while end < high && keys[end] == keys[run] { end += 1 }
            if end - run > 1 && Self.continues(keys[run]) {
                stack.append((run, end, depth + Self.keyBytes, false, budget(end - run)))
            }
            run = end
        }
    }
}
