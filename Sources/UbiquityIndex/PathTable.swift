import CUbiquitySystem
#if canImport(Glibc)
import Glibc
#endif

/// The absolute paths of a list of entries, as UTF-8 in one buffer, for sorting and sending a
/// result set without a `String` per path.
///
/// Built in one pass over the index: each directory's path is written once into a side buffer
/// and copied, never rebuilt, for every entry in it. Paths compare byte by byte (the order of
/// their Unicode scalars), which is also how the file system tells names apart: two names that
/// are canonically equivalent but spelt with other bytes are two entries, and stay apart.
///
/// ```
/// ids:   [7, 3]          (3 = "a.txt" in /r/d, 7 = "b" in /r)
/// bytes: /r/b/r/d/a.txt  ends: [4, 14]  nameStarts: [3, 9]
/// ```
struct PathTable {
    /// Every path, one after another, in the order of the ids it was built from.
    private(set) var bytes: [UInt8] = []
    /// Where path `i` ends in `bytes` (it starts where path `i - 1` ends).
    private(set) var ends: [Int] = []
    /// Where path `i`'s last component starts: paths of entries in one directory agree up to it.
    private var nameStarts: [Int] = []

    var count: Int { ends.count }

    init() {}

    init(_ ids: [ItemID], index: MetadataIndex) {
        // Room for deep paths up front: growing a buffer of megabytes copies it and touches
        // twice its pages, while room never written costs nothing (the kernel maps a big
        // buffer page by page as it is written).
        bytes.reserveCapacity(ids.count * 256)
        let capacity = bytes.capacity
        bytes.withUnsafeMutableBufferPointer { ubq_prefer_huge_pages($0.baseAddress, capacity) }
        ends.reserveCapacity(ids.count)
        nameStarts.reserveCapacity(ids.count)
        var directories = DirectoryPaths(index: index)
        for id in ids { append(id, index: index, directories: &directories) }
    }

    /// Adds one entry's path at the end.
    private mutating func append(_ id: ItemID, index: MetadataIndex, directories: inout DirectoryPaths) {
        if index.flags(id).contains(.containerRoot) {
            nameStarts.append(bytes.count)
        } else {
            let parent = index.parent(id)
            directories.append(parent, to: &bytes)
            bytes.append(UInt8(ascii: "/"))
            nameStarts.append(bytes.count)
        }
        index.appendName(id, to: &bytes)
        ends.append(bytes.count)
    }

    func start(_ i: Int) -> Int { i == 0 ? 0 : ends[i - 1] }

    func nameStart(_ i: Int) -> Int { nameStarts[i] }

    /// Path `i` as a `String` (for code that keeps one).
    func path(_ i: Int) -> String { String(decoding: bytes[start(i)..<ends[i]], as: UTF8.self) }

    /// The positions `0..<count` in path order, or ordered by `first` (negative, zero or
    /// positive) and then by path.
    ///
    /// Path order is ``PathOrder``'s, from where the paths part (the container's path, often
    /// most of each path, is not compared). With `first`, each path's rank in that order breaks
    /// ties: one integer comparison, no bytes read.
    func sortedPositions(first: ((Int, Int) -> Int)? = nil) -> [Int] {
        let order = bytes.withUnsafeBufferPointer { buffer in
            ends.withUnsafeBufferPointer { ends in
                let order = PathOrder(bytes: buffer, ends: ends)
                let shared = sharedPrefix(in: buffer)
                return first == nil ? order.sorted(from: shared) : order.ranks(from: shared)
            }
        }
        guard let first else { return order }
        var positions = Array(0..<count)
        positions.sort { a, b in
            let c = first(a, b)
            return c != 0 ? c < 0 : order[a] < order[b]
        }
        return positions
    }

    /// How many leading bytes all paths share: at most the first path's length, found by
    /// comparing every path with the first only as far as they all still agree.
    func sharedPrefix(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard count > 0 else { return 0 }
        var shared = ends[0]
        guard let base = bytes.baseAddress else { return 0 }
        for i in 1..<count {
            let s = start(i)
            shared = min(shared, ends[i] - s)
            // Most paths agree all the way: one memcmp says so; only the others are walked.
            if memcmp(base, base + s, shared) == 0 { continue }
            var k = 0
            while k < shared && bytes[k] == bytes[s + k] { k += 1 }
            shared = k
            if shared == 0 { break }
        }
        return shared
    }
}

/// Directory paths written once each, for the entries in them (see ``PathTable``).
struct DirectoryPaths {
    private let index: MetadataIndex
    private var bytes: [UInt8] = []
    private var ranges: [ItemID: Range<Int>] = [:]
    /// The last directory asked for: entries arrive grouped by directory more often than not.
    private var last: (id: ItemID, range: Range<Int>)?

    init(index: MetadataIndex) { self.index = index }

    /// Appends directory `id`'s absolute path to `out`.
    mutating func append(_ id: ItemID, to out: inout [UInt8]) {
        let range = self.range(of: id)
        bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }

    private mutating func range(of id: ItemID) -> Range<Int> {
        if let last, last.id == id { return last.range }
        if let known = ranges[id] {
            last = (id, known)
            return known
        }
        // Walk up to the first directory already written (or the container root), then write
        // each one below it, parent before child: no recursion, however deep the tree.
        var chain: [ItemID] = []
        var current = id
        while ranges[current] == nil {
            chain.append(current)
            if index.flags(current).contains(.containerRoot) { break }
            current = index.parent(current)
        }
        for directory in chain.reversed() {
            let start = bytes.count
            if !index.flags(directory).contains(.containerRoot) {
                let parentRange = ranges[index.parent(directory)]!     // written just before
                for offset in parentRange { bytes.append(bytes[offset]) }   // no slice: it would copy the buffer
                bytes.append(UInt8(ascii: "/"))
            }
            index.appendName(directory, to: &bytes)
            ranges[directory] = start..<bytes.count
        }
        let range = ranges[id]!
        last = (id, range)
        return range
    }
}
