import CUbiquitySystem
#if canImport(Glibc)
import Glibc
#endif

/// The absolute paths of a list of entries, as UTF-8 in one buffer, for sorting and sending a
/// result set without a `String` per path.
///
/// Built in one pass over the index: each directory's path is written once into a side buffer
/// (``DirectoryPaths``) and copied, never rebuilt, for every entry in it; the directories are
/// kept, to sort the paths directory by directory (``pathOrder()``). Paths compare byte by byte (the order of
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
    /// The directory path `i` is in (a number of ``directories``), or -1 for a container root.
    private var entryDirectories: [Int] = []
    /// The directories of the entries and those above them, up to their container roots (see
    /// ``DirectoryPaths``): where each one's name starts in its path, its path's length, and the
    /// directory it is in (-1 for a container root). Their names are read from the entries' paths.
    private var directories: (nameOffsets: [Int], lengths: [Int], parents: [Int]) = ([], [], [])

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
        entryDirectories.reserveCapacity(ids.count)
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
                        if flags[i].contains(.containerRoot) {
                            entryDirectories.append(-1)
                        } else {
                            entryDirectories.append(directories.append(parents[i], to: &bytes))
                            bytes.append(UInt8(ascii: "/"))
                        }
                        nameStarts.append(bytes.count)
                        DirectoryPaths.appendName(names[i], to: &bytes)
                        ends.append(bytes.count)
                    }
                    self.directories = (zip(directories.nameStarts, directories.ranges).map { $0 - $1.lowerBound },
                                        directories.ranges.map(\.count), directories.parentDirectories)
                }
            }
        }
    }

    func start(_ i: Int) -> Int { i == 0 ? 0 : ends[i - 1] }

    func nameStart(_ i: Int) -> Int { nameStarts[i] }

    /// Path `i` as a `String` (for code that keeps one).
    func path(_ i: Int) -> String { String(decoding: bytes[start(i)..<ends[i]], as: UTF8.self) }

    /// The positions `0..<count` in path order, or ordered by `first` (negative, zero or
    /// positive) and then by path: each path's rank in path order breaks the ties, one integer
    /// comparison, no bytes read.
    func sortedPositions(first: ((Int, Int) -> Int)? = nil) -> [Int] {
        let order = pathOrder()
        guard let first else { return order }
        var rank = [Int](repeating: 0, count: count)
        for (r, position) in order.enumerated() { rank[position] = r }
        var positions = Array(0..<count)
        positions.sort { a, b in
            let c = first(a, b)
            return c != 0 ? c < 0 : rank[a] < rank[b]
        }
        return positions
    }

    /// The positions in path order, found directory by directory: in each directory, its
    /// entries by name and the directories below it by name and "/" (byte order of the paths
    /// below them), each directory's children sorted apart (most by insertion sort alone, on
    /// names read where they stand in the paths); then a walk down the tree lists them.
    ///
    /// ```
    /// /r: "a" "a.b" "a/"   a: "b"       walk: /r/a /r/a.b /r/a/b /r/a0
    ///     "a0"
    /// ```
    ///
    /// A path's order against another is decided within the first component where they part,
    /// compared with the "/" that follows a directory's name: no name holds a "/", so no key is
    /// a prefix of another but a name of the same name and "/", whose path comes first. Where a
    /// container root lies inside another, that holds no more at the top, and the paths are
    /// sorted whole.
    func pathOrder() -> [Int] {
        let directoryCount = directories.parents.count
        // For each directory, an entry below it: its path starts with the directory's and "/".
        // Directories come after the one they are in, so one pass from the end hands them up.
        var witness = [Int](repeating: -1, count: directoryCount)
        for i in 0..<count where entryDirectories[i] >= 0 && witness[entryDirectories[i]] < 0 {
            witness[entryDirectories[i]] = start(i)
        }
        for n in stride(from: directoryCount - 1, through: 0, by: -1) {
            let parent = directories.parents[n]
            if parent >= 0 && witness[parent] < 0 { witness[parent] = witness[n] }
        }
        let wholePaths = count < 2 || witness.contains { $0 < 0 } || bytes.withUnsafeBufferPointer { rootsNest($0, witness) }
        if wholePaths {
            return bytes.withUnsafeBufferPointer { buffer in
                ends.withUnsafeBufferPointer { PathOrder(bytes: buffer, ends: $0).sorted(from: sharedPrefix(in: buffer)) }
            }
        }
        // The keys: each entry's name, then each directory's name and "/", where they stand in
        // the paths. A directory's children form a group: group 0 the container roots (and any
        // root that is an entry), group n + 1 directory n's children.
        let children = count + directoryCount
        var keyStarts = nameStarts, keyEnds = ends
        var groupOf = entryDirectories.map { $0 + 1 }
        keyStarts.reserveCapacity(children)
        keyEnds.reserveCapacity(children)
        groupOf.reserveCapacity(children)
        for n in 0..<directoryCount {
            keyStarts.append(witness[n] + directories.nameOffsets[n])
            keyEnds.append(witness[n] + directories.lengths[n] + 1)
            groupOf.append(directories.parents[n] + 1)
        }
        // Children by group (a counting sort), then each group by name.
        var groupStarts = [Int](repeating: 0, count: directoryCount + 2)
        for group in groupOf { groupStarts[group + 1] += 1 }
        var largest = 0
        for group in 1..<groupStarts.count {
            largest = max(largest, groupStarts[group])
            groupStarts[group] += groupStarts[group - 1]
        }
        var sorted = [Int](repeating: 0, count: children)
        var next = groupStarts
        for (child, group) in groupOf.enumerated() {
            sorted[next[group]] = child
            next[group] += 1
        }
        bytes.withUnsafeBufferPointer { table in
            keyStarts.withUnsafeBufferPointer { keyStarts in
                keyEnds.withUnsafeBufferPointer { keyEnds in
                    let order = PathOrder(bytes: table, starts: keyStarts, ends: keyEnds)
                    let scratch = UnsafeMutableBufferPointer<PathOrder.Key>.allocate(capacity: largest)
                    defer { scratch.deallocate() }
                    sorted.withUnsafeMutableBufferPointer { sorted in
                        for group in 0..<(groupStarts.count - 1) where groupStarts[group + 1] - groupStarts[group] > 1 {
                            order.sort(UnsafeMutableBufferPointer(rebasing: sorted[groupStarts[group]..<groupStarts[group + 1]]),
                                       scratch, depth: 0)
                        }
                    }
                }
            }
        }
        // Group g's children, in order, are sorted[groupStarts[g]..<groupStarts[g + 1]]: walk
        // down from the top, a directory's children in place of its key.
        var order: [Int] = []
        order.reserveCapacity(count)
        var walk = [(next: groupStarts[0], end: groupStarts[1])]
        while let (next, end) = walk.last {
            guard next < end else {
                walk.removeLast()
                continue
            }
            walk[walk.count - 1].next = next + 1
            let child = sorted[next]
            if child < count {
                order.append(child)
            } else {
                let group = child - count + 1
                walk.append((groupStarts[group], groupStarts[group + 1]))
            }
        }
        return order
    }

    /// Whether a container root's directory lies inside another's, or holds another entry at
    /// the top: the order by first components does not hold there.
    private func rootsNest(_ table: UnsafeBufferPointer<UInt8>, _ witness: [Int]) -> Bool {
        var roots: [UnsafeBufferPointer<UInt8>] = []
        for n in directories.parents.indices where directories.parents[n] < 0 {
            roots.append(UnsafeBufferPointer(rebasing: table[witness[n]..<(witness[n] + directories.lengths[n])]))
        }
        var tops = roots
        for i in 0..<count where entryDirectories[i] < 0 { tops.append(UnsafeBufferPointer(rebasing: table[start(i)..<ends[i]])) }
        for root in roots {
            for top in tops where top.count > root.count && top[root.count] == UInt8(ascii: "/")
            && top.starts(with: root) {
                return true
            }
        }
        return false
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
