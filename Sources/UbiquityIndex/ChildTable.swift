import CUbiquitySystem
import Glibc

/// One directory's children: an open-addressing hash table of ids, keyed by the UTF-8 bytes of
/// their names (which stay in the index's name column, not here).
///
/// Why not `[String: ItemID]`: a dictionary stores each key again (16 bytes) beside its value and
/// keeps at most 75% of its buckets full, 36–52 bytes per child; this table stores a 4-byte id
/// and a 1-byte tag per slot, 5–11 bytes per child. And names compare as bytes, as the kernel
/// compares them: two names that differ only in Unicode normalization (`é` and `e` + U+0301) are
/// two files on Linux, but one key of a Swift dictionary, which compares by canonical equivalence.
///
/// Linear probing with backward-shift deletion (no tombstones), at most 7/8 full. Each slot's tag
/// holds 7 bits of its name's hash, so a probe reads a name from the index (a likely cache miss)
/// only when the tags agree: about once per lookup. Hashes are SipHash under a key drawn at each
/// start (``NameHash``), so names chosen to collide cannot be prepared in advance.
struct ChildTable {
    private static let minimumSlots = 8
    /// Tag of an empty slot; a used slot's tag has the high bit set.
    private static let emptyTag: UInt8 = 0
    private(set) var count = 0
    private var slotIDs: ContiguousArray<ItemID> = []
    private var tags: ContiguousArray<UInt8> = []

    init() {}

    /// An empty table that takes `capacity` children without growing (a restore counts each
    /// directory's children first, so that none is hashed again by a resize).
    init(capacity: Int) {
        guard capacity > 0 else { return }
        let slots = ChildTable.slots(for: capacity)
        slotIDs = ContiguousArray(repeating: 0, count: slots)
        tags = ContiguousArray(repeating: ChildTable.emptyTag, count: slots)
    }

    var isEmpty: Bool { count == 0 }

    /// Slots in the table (free and taken): it grows when children would fill 7 of 8.
    var slotCount: Int { tags.count }

    /// Makes room for `more` children beyond those it has, in one resize at most (a crawl counts
    /// each directory's children in its listing first, so that they are not hashed again by the
    /// table's doublings as they arrive: on the long shape a hash reads a compressed name decoded).
    mutating func reserve(_ more: Int, names: NameColumn.Reader) {
        let wanted = ChildTable.slots(for: count + more)
        if wanted > tags.count { resize(to: wanted, names: names) }
    }

    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int { NameHash.hash(bytes) }

    /// The hash of the name in slot `id` of `names`.
    @inline(__always)
    static func hash(_ id: ItemID, _ names: NameColumn) -> Int { names.withUTF8(Int(id)) { hash($0) } }
    @inline(__always)
    static func hash(_ id: ItemID, _ names: NameColumn.Reader) -> Int { names.withUTF8(Int(id)) { hash($0) } }

    /// The slot a hash starts probing at, and its tag.
    @inline(__always)
    private static func home(_ hash: Int, mask: Int) -> (slot: Int, tag: UInt8) {
        (hash & mask, UInt8(truncatingIfNeeded: UInt(bitPattern: hash) >> 57) | 0x80)
    }

    @inline(__always)
    static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// The id of the child named `name` (byte for byte).
    func find(_ name: String, names: NameColumn) -> ItemID? {
        guard !isEmpty else { return nil }
        var name = name
        return name.withUTF8 { bytes in names.withReader { find(bytes, hash: ChildTable.hash(bytes), names: $0) } }
    }

    /// The id of the child whose name is `bytes`, whose ``hash(_:)-(UnsafeBufferPointer<UInt8>)``
    /// is `hash`: a caller that goes on to ``insert(_:hash:names:)`` the name hashes it once.
    func find(_ bytes: UnsafeBufferPointer<UInt8>, hash: Int, names: NameColumn.Reader) -> ItemID? {
        guard !isEmpty else { return nil }
        let mask = tags.count - 1
        let (start, tag) = ChildTable.home(hash, mask: mask)
        var slot = start
        while true {
            let found = tags[slot]
            if found == ChildTable.emptyTag { return nil }
            if found == tag, names.withUTF8(Int(slotIDs[slot]), { ChildTable.sameBytes($0, bytes) }) { return slotIDs[slot] }
            slot = (slot + 1) & mask
        }
    }

    /// ``find(_:hash:names:)`` through an in-place (`inout`) access: a table kept in a dictionary
    /// is then read in its slot (`values[i]`), not through a copy of it (a retain and a release of
    /// each of its two arrays). Changes nothing.
    mutating func findInPlace(_ bytes: UnsafeBufferPointer<UInt8>, hash: Int, names: NameColumn.Reader) -> ItemID? {
        find(bytes, hash: hash, names: names)
    }

    /// Adds `id`, whose name (`names[id]`) no child has yet.
    mutating func insert(_ id: ItemID, names: NameColumn) {
        names.withReader { insert(id, hash: ChildTable.hash(id, $0), names: $0) }
    }

    /// Adds `id`, whose name no child has yet and hashes to `hash` (``hash(_:_:)``).
    mutating func insert(_ id: ItemID, hash: Int, names: NameColumn.Reader) {
        if (count + 1) * 8 > tags.count * 7 { resize(to: ChildTable.slots(for: count + 1), names: names) }
        place(id, hash: hash)
        count += 1
    }

    /// Adds `id` unless a child already has its name (byte for byte): false then, and nothing
    /// changes. The name is hashed once for the lookup and the filing.
    mutating func insertUnlessNamed(_ id: ItemID, names: NameColumn) -> Bool {
        names.withReader { insertUnlessNamed(id, names: $0) }
    }

    /// ``insertUnlessNamed(_:names:)-(_,NameColumn)`` through a reader the caller holds (one for
    /// many entries: a restore).
    mutating func insertUnlessNamed(_ id: ItemID, names reader: NameColumn.Reader) -> Bool {
        reader.withUTF8(Int(id)) { bytes in
            let hash = ChildTable.hash(bytes)
            guard find(bytes, hash: hash, names: reader) == nil else { return false }
            insert(id, hash: hash, names: reader)
            return true
        }
    }

    /// Removes `id` if it is a child; true if it was.
    @discardableResult
    mutating func remove(_ id: ItemID, names: NameColumn) -> Bool {
        guard !isEmpty else { return false }
        let mask = tags.count - 1
        var slot = ChildTable.home(ChildTable.hash(id, names), mask: mask).slot
        while tags[slot] == ChildTable.emptyTag || slotIDs[slot] != id {
            if tags[slot] == ChildTable.emptyTag { return false }
            slot = (slot + 1) & mask
        }
        // Backward shift: move later members of the probe run into the hole when their home
        // slot allows, so lookups never need tombstones.
        var hole = slot
        var next = (slot + 1) & mask
        while tags[next] != ChildTable.emptyTag {
            let home = ChildTable.home(ChildTable.hash(slotIDs[next], names), mask: mask).slot
            // It may fill the hole when its home is not cyclically in (hole, next].
            if (next &- home) & mask >= (next &- hole) & mask {
                slotIDs[hole] = slotIDs[next]
                tags[hole] = tags[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        tags[hole] = ChildTable.emptyTag
        count -= 1
        if count == 0 {
            (slotIDs, tags) = ([], [])
        } else if tags.count > ChildTable.minimumSlots, count * 8 < tags.count {
            resize(to: ChildTable.slots(for: count), names: names)
        }
        return true
    }

    /// Every child id, in no particular order.
    var ids: [ItemID] {
        var out: [ItemID] = []
        out.reserveCapacity(count)
        for slot in tags.indices where tags[slot] != ChildTable.emptyTag { out.append(slotIDs[slot]) }
        return out
    }

    /// The smallest power of two of slots that holds `count` children at most 7/8 full.
    private static func slots(for count: Int) -> Int {
        var slots = minimumSlots
        while count * 8 > slots * 7 { slots *= 2 }
        return slots
    }

    private mutating func place(_ id: ItemID, hash: Int) {
        tags.withUnsafeMutableBufferPointer { tags in
            slotIDs.withUnsafeMutableBufferPointer { slotIDs in ChildTable.place(id, hash: hash, tags: tags, slotIDs: slotIDs) }
        }
    }

    private mutating func resize(to slots: Int, names: NameColumn) {
        names.withReader { resize(to: slots, names: $0) }
    }

    /// How far ahead a resize asks for the names it will hash: a slot `2 × nameDistance` ahead,
    /// a long name's bytes `nameDistance` ahead (its slot read by then).
    static let nameDistance = 8

    /// Every child hashed again into `slots` slots. The children come in slot order, their names
    /// scattered over the name column: each name read is a likely cache miss, and so is its home
    /// slot in a large table. Both are asked for ahead, so the misses overlap: growing one
    /// directory of a million children (a flat tree's first crawl, 1.75 million names hashed
    /// again in all) was a quarter of the engine's time, most of it waiting for names.
    private mutating func resize(to slots: Int, names: NameColumn.Reader) {
        let old = ids
        slotIDs = ContiguousArray(repeating: 0, count: slots)
        tags = ContiguousArray(repeating: ChildTable.emptyTag, count: slots)
        let ahead = ChildTable.nameDistance
        let mask = slots - 1
        old.withUnsafeBufferPointer { old in
            tags.withUnsafeMutableBufferPointer { tags in
                slotIDs.withUnsafeMutableBufferPointer { slotIDs in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: ahead) { block in
                        var start = 0
                        while start < old.count {
                            let end = Swift.min(start + ahead, old.count)
                            // This block's hashes, later names asked for meanwhile, and each
                            // one's home asked for before any of them is placed.
                            for k in start..<end {
                                if k + 2 * ahead < old.count { ubq_prefetch(names.address(Int(old[k + 2 * ahead]))) }
                                if k + ahead < old.count { ubq_prefetch(names.bytesAddress(Int(old[k + ahead]))) }
                                let hash = ChildTable.hash(old[k], names)
                                block[k - start] = hash
                                ubq_prefetch(tags.baseAddress! + (hash & mask))
                                ubq_prefetch(slotIDs.baseAddress! + (hash & mask))
                            }
                            for k in start..<end {
                                ChildTable.place(old[k], hash: block[k - start], tags: tags, slotIDs: slotIDs)
                            }
                            start = end
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func place(_ id: ItemID, hash: Int, tags: UnsafeMutableBufferPointer<UInt8>,
                              slotIDs: UnsafeMutableBufferPointer<ItemID>) {
        let mask = tags.count - 1
        let (start, tag) = ChildTable.home(hash, mask: mask)
        var slot = start
        while tags[slot] != ChildTable.emptyTag { slot = (slot + 1) & mask }
        slotIDs[slot] = id
        tags[slot] = tag
    }
}
