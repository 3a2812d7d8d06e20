import CUbiquitySystem
#if canImport(Glibc)
import Glibc
#endif

/// The absolute paths of a list of entries, each as its directory's path and its name, for
/// sorting and sending a result set without a whole path, let alone a `String`, per entry.
///
/// Built in one pass over the index: each directory's path is written once, with the "/"
/// that ends it (``DirectoryPaths``), and each entry keeps the number of its directory and its
/// name; an entry's path is the two one after the other. A result set of 97,707 entries of a
/// million-entry tree holds 4 MB of names and the paths of the few thousand directories they
/// are in, where whole paths took 27 MB. Paths compare byte by byte (the order of their
/// Unicode scalars), which is also how the file system tells names apart: two names that are
/// canonically equivalent but spelt with other bytes are two entries, and stay apart.
///
/// ```
/// ids:   [7, 3]          (3 = "a.txt" in /r/d, 7 = "b" in /r)
/// directories: /r//r/d/   ranges: 0..<3, 3..<8
/// names: ba.txt           nameEnds: [1, 6]   entryDirectories: [0, 1]
/// ```
struct PathTable {
    /// Every directory's path and "/", one after another (see ``DirectoryPaths``).
    private(set) var directoryBytes: [UInt8] = []
    /// Where each directory's path ends in ``directoryBytes`` (it starts where the one before ends).
    private(set) var directoryEnds: [Int] = []
    /// Where each directory's name starts, and the directory it is in (-1 for a container root).
    private var directoryNameStarts: [Int] = []
    private var directoryParents: [Int] = []
    /// Every entry's name, one after another, in the order of the ids it was built from; then
    /// each directory's name and "/", its key when paths are sorted (``pathOrder()``).
    private(set) var names: [UInt8] = []
    /// Where entry `i`'s name ends in ``names`` (it starts where entry `i - 1`'s ends).
    private(set) var nameEnds: [Int] = []
    /// Where directory `n`'s name and "/" end in ``names`` (after the entries' names).
    private var directoryKeyEnds: [Int] = []
    /// The directory entry `i` is in (a number of the directories), or -1 for a container root,
    /// whose path is its name.
    private(set) var entryDirectories: [Int32] = []

    var count: Int { nameEnds.count }

    /// How many entries ahead the build asks for the index's slots (see ``init(_:index:)``), and
    /// ``ResultSet`` for the generations. An entry costs a few nanoseconds here, a miss to memory
    /// a hundred or more: at 12 the build still waited on most slots (a 10k-item answer of a flat
    /// tree of 100k entries: about 0.35 ms less from request to response at 32).
    static let prefetchDistance = 32

    init() {}

    init(_ ids: [ItemID], index: MetadataIndex) {
        // Room for long names up front: growing a buffer of megabytes copies it and touches
        // twice its pages, while room never written costs nothing; advised for huge pages, one
        // fault per 2 MiB rather than per 4 KiB. Names are written straight into it (a short
        // one as its whole 16-byte slot, two stores); should they outgrow it, the rest are
        // appended as the array grows.
        nameEnds.reserveCapacity(ids.count)
        entryDirectories.reserveCapacity(ids.count)
        // The index's columns held open for the whole build: no exclusivity check, bounds check
        // or retain of a column per entry.
        index.names.withReader { names in
            index.parents.withReader { parents in
                index.flagsOf.withReader { flags in
                    var directories = DirectoryPaths(names: names, parents: parents, flags: flags)
                    var k = 0
                    /// Files entry `k`'s directory (with the slots of the entries ahead asked
                    /// for) and returns its id, whose name goes next.
                    func fileDirectory() -> Int {
                        // The ids are scattered over columns of megabytes: every slot read
                        // would be a cache miss, one after another, without asking ahead.
                        if k + Self.prefetchDistance < ids.count {
                            let ahead = Int(ids[k + Self.prefetchDistance])
                            ubq_prefetch(names.address(ahead))
                            ubq_prefetch(parents.address(ahead))
                            ubq_prefetch(flags.address(ahead))
                        }
                        // A long name's bytes are elsewhere again, known once its slot is
                        // read: asked for halfway, when the slot asked for above has arrived.
                        if k + Self.prefetchDistance / 2 < ids.count {
                            ubq_prefetch(names.bytesAddress(Int(ids[k + Self.prefetchDistance / 2])))
                        }
                        let i = Int(ids[k])
                        if flags[i].contains(.containerRoot) {
                            entryDirectories.append(-1)
                        } else {
                            entryDirectories.append(Int32(truncatingIfNeeded: directories.directory(parents[i])))
                        }
                        return i
                    }
                    self.names = [UInt8](unsafeUninitializedCapacity: ids.count * 48 + MemoryLayout<NameSlot>.size) { room, written in
                        written = 0
                        guard let base = room.baseAddress else { return }
                        ubq_prefer_huge_pages(base, room.count)
                        while k < ids.count {
                            let i = fileDirectory()
                            guard let count = names.writeUTF8(i, to: base + written, room: room.count - written) else {
                                entryDirectories.removeLast()
                                return
                            }
                            written += count
                            nameEnds.append(written)
                            k += 1
                        }
                    }
                    while k < ids.count {
                        let i = fileDirectory()
                        names.appendUTF8(i, to: &self.names)
                        nameEnds.append(self.names.count)
                        k += 1
                    }
                    directoryBytes = directories.bytes
                    directoryEnds = directories.ranges.map(\.upperBound)
                    directoryNameStarts = directories.nameStarts
                    directoryParents = directories.parentDirectories
                }
            }
        }
        // The directories' keys beside the names: the sort reads every key from one buffer.
        directoryKeyEnds.reserveCapacity(directoryEnds.count)
        directoryBytes.withUnsafeBufferPointer { directories in
            for n in directoryEnds.indices {
                names.append(contentsOf: UnsafeBufferPointer(rebasing: directories[directoryNameStarts[n]..<directoryEnds[n]]))
                directoryKeyEnds.append(names.count)
            }
        }
    }

    /// Neighbouring pairs that ``keepsDirectoriesTogether(_:index:)`` looks at.
    static let directorySamplePairs = 64

    /// Whether `ids`, in the order given, keep each directory's entries together: at least half
    /// of ``directorySamplePairs`` neighbouring pairs, spread over the list, share a directory.
    /// Then the paths are cheapest to build in that order (a directory is looked up once per run
    /// of its entries). Names that scatter a directory's entries over a name index's listing
    /// (random ones, such as UUIDs) make every entry look its directory up in a table as large as
    /// the answer's directories, more often a cache miss the more directories there are; id order,
    /// in which the crawl added the entries one directory at a time, is cheaper then (at 5M
    /// entries, a third to nearly half of the answer's time: docs/architecture.md, "The data flow").
    static func keepsDirectoriesTogether(_ ids: [ItemID], index: MetadataIndex) -> Bool {
        guard ids.count > 2 else { return true }
        let pairs = min(ids.count - 1, directorySamplePairs)
        var together = 0
        index.parents.withReader { parents in
            // Pair p starts at p·(count − 1)/pairs: spread from the first id to the last.
            for pair in 0..<pairs {
                let k = pair * (ids.count - 1) / pairs
                if parents[Int(ids[k])] == parents[Int(ids[k + 1])] { together += 1 }
            }
        }
        return together * 2 >= pairs
    }

    func nameStart(_ i: Int) -> Int { i == 0 ? 0 : nameEnds[i - 1] }

    func directoryStart(_ n: Int) -> Int { n == 0 ? 0 : directoryEnds[n - 1] }

    /// Path `i`'s bytes: its directory's path (nothing for a container root), then its name.
    func appendPath(_ i: Int, to out: inout [UInt8]) {
        let directory = Int(entryDirectories[i])
        if directory >= 0 { out.append(contentsOf: directoryBytes[directoryStart(directory)..<directoryEnds[directory]]) }
        out.append(contentsOf: names[nameStart(i)..<nameEnds[i]])
    }

    /// Path `i` as a `String` (for code that keeps one).
    func path(_ i: Int) -> String {
        var bytes: [UInt8] = []
        appendPath(i, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

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
    /// below them), each directory's children sorted apart (most by insertion sort alone); then
    /// a walk down the tree lists them.
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
        let directoryCount = directoryParents.count
        if count < 2 || rootsNest() { return wholePathOrder() }
        if isOneDirectoryInOrder() { return Array(0..<count) }
        // The keys: each entry's name, then each directory's name and "/", one after another in
        // ``names``. A directory's children form a group: group 0 the container roots (and any
        // root that is an entry), group n + 1 directory n's children.
        let children = count + directoryCount
        // Keys lie end to end in ``names``, so their ends alone say where each starts.
        var keyEnds = nameEnds
        keyEnds.append(contentsOf: directoryKeyEnds)
        // Child `c`'s group, read where it is needed rather than kept in an array per child:
        // at 100k results every array is another 800 KB mapped and faulted in per answer.
        let groupOf = { (child: Int) -> Int in
            child < self.count ? Int(self.entryDirectories[child]) + 1 : self.directoryParents[child - self.count] + 1
        }
        // Children by group (a counting sort), then each group by name.
        var groupStarts = [Int](repeating: 0, count: directoryCount + 2)
        for child in 0..<children { groupStarts[groupOf(child) + 1] += 1 }
        var largest = 0
        for group in 1..<groupStarts.count {
            largest = max(largest, groupStarts[group])
            groupStarts[group] += groupStarts[group - 1]
        }
        var sorted = [Int](repeating: 0, count: children)
        var next = groupStarts
        for child in 0..<children {
            let group = groupOf(child)
            sorted[next[group]] = child
            next[group] += 1
        }
        names.withUnsafeBufferPointer { table in
            keyEnds.withUnsafeBufferPointer { keyEnds in
                let order = PathOrder(bytes: table, ends: keyEnds)
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

    /// Whether every entry is in one directory (none a container root) and their names come in
    /// byte order, each after the one before: then that is their path order, as no directory
    /// below that one holds an entry. A flat tree's answer taken in the name index's order is
    /// so, and is then only checked, one comparison per entry, rather than grouped, checked
    /// and walked (with four arrays of the answer's size, each faulted in per answer).
    private func isOneDirectoryInOrder() -> Bool {
        guard let directory = entryDirectories.first, directory >= 0 else { return false }
        return names.withUnsafeBufferPointer { names in
            guard let base = names.baseAddress else { return false }
            var start = 0, end = nameEnds[0]
            for i in 1..<count {
                guard entryDirectories[i] == directory else { return false }
                let nextEnd = nameEnds[i]
                let length = end - start, nextLength = nextEnd - end
                let shared = memcmp(base + start, base + end, min(length, nextLength))
                // Byte order: the first differing byte decides, else the shorter name comes first.
                guard shared < 0 || (shared == 0 && length < nextLength) else { return false }
                start = end
                end = nextEnd
            }
            return true
        }
    }

    /// The whole paths, one after another, and where each ends.
    func wholePaths() -> (bytes: [UInt8], ends: [Int]) {
        var bytes: [UInt8] = [], ends: [Int] = []
        ends.reserveCapacity(count)
        for i in 0..<count {
            appendPath(i, to: &bytes)
            ends.append(bytes.count)
        }
        return (bytes, ends)
    }

    /// Path order by sorting whole paths, built for it.
    private func wholePathOrder() -> [Int] {
        let (bytes, ends) = wholePaths()
        return bytes.withUnsafeBufferPointer { buffer in
            ends.withUnsafeBufferPointer { ends in
                PathOrder(bytes: buffer, ends: ends).sorted(from: Self.sharedPrefix(buffer, ends))
            }
        }
    }

    /// Whether a container root's directory lies inside another's, or holds another entry at
    /// the top: the order by first components does not hold there.
    private func rootsNest() -> Bool {
        var roots: [ArraySlice<UInt8>] = []
        for n in directoryParents.indices where directoryParents[n] < 0 {
            roots.append(directoryBytes[directoryStart(n)..<(directoryEnds[n] - 1)])
        }
        var tops = roots
        for i in 0..<count where entryDirectories[i] < 0 { tops.append(names[nameStart(i)..<nameEnds[i]]) }
        for root in roots {
            for top in tops where top.count > root.count && top[top.startIndex + root.count] == UInt8(ascii: "/")
            && top.starts(with: root) {
                return true
            }
        }
        return false
    }

    /// How many leading bytes all paths share: at most the first path's length, found by
    /// comparing every path with the first only as far as they all still agree.
    static func sharedPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ ends: UnsafeBufferPointer<Int>) -> Int {
        guard let base = bytes.baseAddress, !ends.isEmpty else { return 0 }
        var shared = ends[0]
        for i in 1..<ends.count {
            let s = ends[i - 1]
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
