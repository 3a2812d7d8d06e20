/// The absolute paths of directories, each written once into one buffer with the "/" that
/// ends it, for the entries in them (see ``PathTable``), read from the index's columns.
///
/// Directories are numbered as they are written, a directory after the one it is in, and
/// found by id in an open-addressed table sized by the directories met, not by the index: a
/// table per query, a few hundred kilobytes at 20,000 directories. ``PathTable`` keeps their
/// numbers, names and parents to sort paths directory by directory.
///
/// ```
/// bytes:   /r//r/d//r/d/e/  ("/r" root, d in it, e in d; each path copied from its parent's)
/// ranges:  0..<3  3..<8  8..<15       parentDirectories: -1  0  1
/// slots:   r → 0, d → 1, e → 2        (hashed by id)
/// ```
struct DirectoryPaths {
    private let names: NameColumn.Reader
    private let parents: ChunkedColumn<ItemID>.Reader
    private let flags: ChunkedColumn<MetadataIndex.Flags>.Reader
    /// Every directory's path and "/", one after another, in the order they were written (a
    /// directory after its own).
    private(set) var bytes: [UInt8] = []
    /// Directory `n`'s path and "/" in `bytes` (`n` counts directories in the order they were
    /// written; each range starts where the one before ends).
    private(set) var ranges: [Range<Int>] = []
    /// Where directory `n`'s name starts in `bytes` (for a container root, its path).
    private(set) var nameStarts: [Int] = []
    /// The directory that directory `n` is in, or -1 for a container root.
    private(set) var parentDirectories: [Int] = []
    /// Open addressing, linear probing: a slot holds `id << 32 | (n + 1)` for directory `n`, or
    /// 0 when free. Kept at most half full.
    private var slots: [UInt64]
    private var shift: Int
    /// The last directory asked for: entries arrive grouped by directory more often than not.
    private var last: (id: ItemID, directory: Int)?

    /// - Parameters: the index's columns, held open while this lives.
    init(names: NameColumn.Reader, parents: ChunkedColumn<ItemID>.Reader,
         flags: ChunkedColumn<MetadataIndex.Flags>.Reader) {
        self.names = names
        self.parents = parents
        self.flags = flags
        slots = [UInt64](repeating: 0, count: 1024)
        shift = 64 - 10
    }

    /// Directory `id`'s number, `n`: its path is written first if it is not yet.
    mutating func directory(_ id: ItemID) -> Int {
        if let last, last.id == id { return last.directory }
        if let known = find(id) {
            last = (id, known)
            return known
        }
        // Walk up to the first directory already written (or the container root), then write
        // each one below it, parent before child: no recursion, however deep the tree.
        var chain: [ItemID] = []
        var current = id
        var above = -1
        while true {
            chain.append(current)
            if flags[Int(current)].contains(.containerRoot) { break }
            current = parents[Int(current)]
            if let known = find(current) {
                above = known
                break
            }
        }
        for directory in chain.reversed() {
            let start = bytes.count
            if above >= 0 {
                // Copied from earlier in the same buffer: grown first, then one memory copy.
                let parent = ranges[above]
                bytes.append(contentsOf: repeatElement(0, count: parent.count))
                bytes.withUnsafeMutableBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    (base + start).update(from: base + parent.lowerBound, count: parent.count)
                }
            }
            nameStarts.append(bytes.count)
            names.appendUTF8(Int(directory), to: &bytes)
            bytes.append(UInt8(ascii: "/"))
            ranges.append(start..<bytes.count)
            parentDirectories.append(above)
            above = ranges.count - 1
            insert(directory, above)
        }
        last = (id, above)
        return above
    }

    @inline(__always)
    private func slot(_ id: ItemID) -> Int { Int(truncatingIfNeeded: (UInt64(id) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift)) }

    private func find(_ id: ItemID) -> Int? {
        var s = slot(id)
        while true {
            let entry = slots[s]
            if entry == 0 { return nil }
            if UInt32(truncatingIfNeeded: entry >> 32) == id { return Int(entry & 0xFFFF_FFFF) - 1 }
            s = (s + 1) & (slots.count - 1)
        }
    }

    private mutating func insert(_ id: ItemID, _ directory: Int) {
        if ranges.count * 2 > slots.count {
            let old = slots
            slots = [UInt64](repeating: 0, count: old.count * 2)
            shift -= 1
            for entry in old where entry != 0 { place(entry) }
        }
        place(UInt64(id) << 32 | UInt64(directory + 1))
    }

    private mutating func place(_ entry: UInt64) {
        var s = slot(ItemID(truncatingIfNeeded: entry >> 32))
        while slots[s] != 0 { s = (s + 1) & (slots.count - 1) }
        slots[s] = entry
    }
}
