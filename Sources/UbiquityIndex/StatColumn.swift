/// The index's column of statuses (``FileStat``), one per slot, kept in 40 bytes a slot where a
/// `FileStat` takes 64.
///
/// What is packed, and why it loses nothing:
/// - kind, `evicted` and "has tags" go in the bits above the permission bits, which are all of a
///   status's mode the index keeps (``FileStat/mode`` is `0o7777` at most: the watcher masks the
///   file type away, and a saved index holding more is refused);
/// - the owner and group are one 4-byte number, their place in a table of the (uid, gid) pairs
///   the column has seen: a container has a handful. The table only grows (a place once given
///   keeps its pair); only root can give files many owners, and then it holds each pair once.
///   The place is 2 bytes in the slot: a place from 65,535 on is in a dictionary by slot
///   (`largeOwners`), the slot holding 65,535;
/// - the size is 4 bytes in the slot: a size of 4 GiB − 1 or more (or below 0) is in a dictionary
///   by slot (`largeSizes`), the slot holding 4 GiB − 1 (`UInt32.max`), so no size is lost and
///   a tree of small files pays nothing for the few large ones;
/// - tags, which few entries have, are in a dictionary by slot instead of an array reference in
///   every slot.
///
/// ```
/// slot:  modified 8 | created 8 | changed 8 | inode 8 | size 4 | mode+flags 2 | owner 2 = 40 bytes
///        mode+flags: bits 0-11 permissions, 12-13 kind, 14 evicted, 15 has tags
/// ```
///
/// Copies share as ``ChunkedColumn`` does (a snapshot holds one while it is encoded). Every write
/// of a slot writes its chunk, even when only its tags changed: a chunk that is still the same
/// object is what tells the saved index's incremental encoder that a range of slots, their tags
/// and owners included, did not change (a place in the owner table never changes meaning).
struct StatColumn {
    private struct PackedStat {
        var modified: Int64
        var created: Int64
        var changed: Int64
        var inode: UInt64
        var size: UInt32
        var modeAndFlags: UInt16
        var owner: UInt16
    }

    private static let modeMask: UInt16 = 0o7777
    private static let kindShift: UInt16 = 12
    private static let evictedFlag: UInt16 = 1 << 14
    private static let taggedFlag: UInt16 = 1 << 15
    /// A slot's size field holding this: the size is in `largeSizes`.
    private static let largeSize = UInt32.max
    /// A slot's owner field holding this: the owner's place is in `largeOwners`.
    private static let largeOwner = UInt16.max

    private var packed = ChunkedColumn<PackedStat>()
    /// (uid, gid) pairs by place; `ownerPlaces` finds a pair's place.
    private var owners: [UInt64] = []
    private var ownerPlaces: [UInt64: UInt32] = [:]
    /// Tags of the slots that have any.
    private var tags: [Int: [String]] = [:]
    /// Sizes that do not fit a slot's 4 bytes, by slot.
    private var largeSizes: [Int: Int64] = [:]
    /// Owner places that do not fit a slot's 2 bytes, by slot.
    private var largeOwners: [Int: UInt32] = [:]

    init() {}

    var count: Int { packed.count }

    /// Bytes a slot takes.
    static var slotBytes: Int { MemoryLayout<PackedStat>.stride }

    static var chunkShift: Int { ChunkedColumn<PackedStat>.chunkShift }
    static var chunkSize: Int { ChunkedColumn<PackedStat>.chunkSize }

    subscript(position: Int) -> FileStat {
        get {
            let p = packed[position]
            let pair = owners[Int(ownerPlace(p, at: position))]
            let kind = Self.kind(of: p)
            let size = p.size == Self.largeSize ? largeSizes[position] ?? Int64(p.size) : Int64(p.size)
            var stat = FileStat(kind: kind, size: size, modified: p.modified, created: p.created, changed: p.changed,
                                mode: UInt32(p.modeAndFlags & Self.modeMask), uid: UInt32(truncatingIfNeeded: pair >> 32),
                                gid: UInt32(truncatingIfNeeded: pair), inode: p.inode,
                                tags: p.modeAndFlags & Self.taggedFlag != 0 ? tags[position] ?? [] : [])
            stat.evicted = p.modeAndFlags & Self.evictedFlag != 0
            return stat
        }
        set {
            let old = packed[position]
            packed[position] = pack(newValue, at: position)
            if !newValue.tags.isEmpty { tags[position] = newValue.tags } else if old.modeAndFlags & Self.taggedFlag != 0 { tags[position] = nil }
            if old.size == Self.largeSize && packed[position].size != Self.largeSize { largeSizes[position] = nil }
            if old.owner == Self.largeOwner && packed[position].owner != Self.largeOwner { largeOwners[position] = nil }
        }
    }

    /// Whether slot `position` holds `stat` as the index would store it over this slot: with the
    /// slot's own tags when `stat` deferred its tags (``MetadataIndex/keepingTags(_:of:)``, then
    /// ``MetadataIndex/stored(_:)``). The same answer as comparing the two statuses, without
    /// building the slot's: a restart's check asks it of every entry it finds in the index, and
    /// a `FileStat` built and compared per entry was most of the check's serial part (`perf`, 1M).
    /// Never inlined: inlined into the check's loop, the column was copied for every entry (its
    /// arrays and dictionaries retained and released); called, it is borrowed where it lies.
    @inline(never) func holds(_ stat: FileStat, at position: Int) -> Bool {
        let p = packed[position]
        guard p.modified == stat.modified, p.created == stat.created, p.changed == stat.changed, p.inode == stat.inode,
              UInt32(p.modeAndFlags & Self.modeMask) == stat.mode, Self.kind(of: p) == stat.kind,
              (p.modeAndFlags & Self.evictedFlag != 0) == stat.evicted,
              (p.size == Self.largeSize ? largeSizes[position] ?? Int64(p.size) : Int64(p.size)) == stat.size,
              owners[Int(ownerPlace(p, at: position))] == UInt64(stat.uid) << 32 | UInt64(stat.gid) else { return false }
        guard !stat.tagsDeferred else { return true }
        return (p.modeAndFlags & Self.taggedFlag != 0 ? tags[position] ?? [] : []) == stat.tags
    }

    /// Slot `position`'s kind alone: one field of its 40 bytes, where the whole status looks up
    /// its owner and builds a `FileStat` (a restore asks this of every slot).
    func kind(_ position: Int) -> FileStat.Kind { Self.kind(of: packed[position]) }

    private static func kind(of p: PackedStat) -> FileStat.Kind {
        FileStat.Kind(rawValue: UInt8(truncatingIfNeeded: (p.modeAndFlags >> kindShift) & 3))!
    }

    mutating func append(_ stat: FileStat) {
        let position = packed.count
        packed.append(pack(stat, at: position))
        if !stat.tags.isEmpty { tags[position] = stat.tags }
    }

    /// Adds `stats` after the last slot, packed first and then appended together
    /// (``ChunkedColumn/append(contentsOf:)``).
    mutating func append(contentsOf stats: [FileStat]) {
        let first = packed.count
        var batch: [PackedStat] = []
        batch.reserveCapacity(stats.count)
        for (k, stat) in stats.enumerated() {
            batch.append(pack(stat, at: first + k))
            if !stat.tags.isEmpty { tags[first + k] = stat.tags }
        }
        packed.append(contentsOf: batch)
    }

    mutating func reserveCapacity(_ capacity: Int) { packed.reserveCapacity(capacity) }

    /// Adds `other`'s statuses after these, taking its chunks as they are: this column must hold
    /// whole chunks (``ChunkedColumn/append(chunksOf:)``). `other`'s owners get their places in
    /// this column's table; where a place differs (not the same owners first in both), its slots
    /// are rewritten in place: `other` is left to be dropped.
    mutating func append(contentsOf other: inout StatColumn) {
        let offset = packed.count
        var places: [UInt32] = []
        places.reserveCapacity(other.owners.count)
        for pair in other.owners {
            places.append(place(uid: UInt32(truncatingIfNeeded: pair >> 32), gid: UInt32(truncatingIfNeeded: pair)))
        }
        if places.enumerated().contains(where: { UInt32($0.offset) != $0.element }) {
            for i in 0..<other.packed.count {
                var p = other.packed[i]
                let place = places[Int(other.ownerPlace(p, at: i))]
                if p.owner == Self.largeOwner { other.largeOwners[i] = nil }
                p.owner = other.fileOwner(place, at: i)
                other.packed[i] = p
            }
        }
        packed.append(chunksOf: other.packed)
        for (position, tags) in other.tags { self.tags[offset + position] = tags }
        for (position, size) in other.largeSizes { largeSizes[offset + position] = size }
        for (position, place) in other.largeOwners { largeOwners[offset + position] = place }
    }

    /// Lends `body` where each slot's packed status is in memory, to ask for slots ahead of a
    /// loop that reads them out of order (a prefetch); `body` must not change the column.
    func withAddresses<R>(_ body: ((Int) -> UnsafeRawPointer) throws -> R) rethrows -> R {
        try packed.withReader { reader in try body { UnsafeRawPointer(reader.address($0)) } }
    }

    func chunkOwner(_ c: Int) -> AnyObject { packed.chunkOwner(c) }

    /// `stat` in a slot's 40 bytes; a size or an owner's place that does not fit is filed for
    /// slot `position` in its dictionary.
    private mutating func pack(_ stat: FileStat, at position: Int) -> PackedStat {
        var flags = UInt16(truncatingIfNeeded: stat.mode) & Self.modeMask | UInt16(stat.kind.rawValue) << Self.kindShift
        if stat.evicted { flags |= Self.evictedFlag }
        if !stat.tags.isEmpty { flags |= Self.taggedFlag }
        var size = Self.largeSize
        if stat.size >= 0 && stat.size < Int64(Self.largeSize) {
            size = UInt32(truncatingIfNeeded: stat.size)
        } else {
            largeSizes[position] = stat.size
        }
        let owner = fileOwner(place(uid: stat.uid, gid: stat.gid), at: position)
        return PackedStat(modified: stat.modified, created: stat.created, changed: stat.changed, inode: stat.inode,
                          size: size, modeAndFlags: flags, owner: owner)
    }

    /// Slot `position`'s owner's place in the owner table.
    private func ownerPlace(_ p: PackedStat, at position: Int) -> UInt32 {
        p.owner == Self.largeOwner ? largeOwners[position] ?? UInt32(p.owner) : UInt32(p.owner)
    }

    /// The owner field of slot `position` for owner place `place`: the place itself when it fits
    /// 2 bytes, else ``largeOwner`` with the place filed in `largeOwners`.
    private mutating func fileOwner(_ place: UInt32, at position: Int) -> UInt16 {
        guard place >= UInt32(Self.largeOwner) else { return UInt16(truncatingIfNeeded: place) }
        largeOwners[position] = place
        return Self.largeOwner
    }

    /// The place of (uid, gid) in the owner table, added when new.
    private mutating func place(uid: UInt32, gid: UInt32) -> UInt32 {
        let pair = UInt64(uid) << 32 | UInt64(gid)
        // The last pair added is by far the likeliest: one owner files a whole tree.
        if let last = owners.last, last == pair { return UInt32(owners.count - 1) }
        if let known = ownerPlaces[pair] { return known }
        let new = UInt32(owners.count)
        owners.append(pair)
        ownerPlaces[pair] = new
        return new
    }
}
