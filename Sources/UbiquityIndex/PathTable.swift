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

    /// How many entries ahead the build asks for the index's slots (see ``init(_:index:)``).
    static let prefetchDistance = 12

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
        // The index's columns held open for the whole build: no exclusivity check or retain of
        // a column per entry.
        index.names.withUnsafeBufferPointer { names in
            index.parents.withUnsafeBufferPointer { parents in
                index.flagsOf.withUnsafeBufferPointer { flags in
                    var directories = DirectoryPaths(names: names, parents: parents, flags: flags)
                    for (k, id) in ids.enumerated() {
                        // The ids are scattered over columns of megabytes: every slot read
                        // would be a cache miss, one after another, without asking ahead.
                        if k + Self.prefetchDistance < ids.count {
                            let ahead = Int(ids[k + Self.prefetchDistance])
                            ubq_prefetch(names.baseAddress.map { $0 + ahead })
                            ubq_prefetch(parents.baseAddress.map { $0 + ahead })
                            ubq_prefetch(flags.baseAddress.map { $0 + ahead })
                        }
                        let i = Int(id)
                        if !flags[i].contains(.containerRoot) {
                            directories.append(parents[i], to: &bytes)
                            bytes.append(UInt8(ascii: "/"))
                        }
                        nameStarts.append(bytes.count)
                        DirectoryPaths.appendName(names[i], to: &bytes)
                        ends.append(bytes.count)
                    }
                }
            }
        }
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
