/// The index's column of statuses (``FileStat``), one per slot, kept in 48 bytes a slot where a
/// `FileStat` takes 64.
///
/// What is packed, and why it loses nothing:
/// - kind, `evicted` and "has tags" go in the bits above the permission bits, which are all of a
///   status's mode the index keeps (``FileStat/mode`` is `0o7777` at most: the watcher masks the
///   file type away, and a saved index holding more is refused);
/// - the owner and group are one 4-byte number, their place in a table of the (uid, gid) pairs
///   the column has seen: a container has a handful. The table only grows (a place once given
///   keeps its pair); only root can give files many owners, and then it holds each pair once;
/// - tags, which few entries have, are in a dictionary by slot instead of an array reference in
///   every slot.
///
/// ```
/// slot:  size 8 | modified 8 | created 8 | changed 8 | inode 8 | mode+flags 4 | owner 4 = 48 bytes
///        mode+flags: bits 0-11 permissions, 12-13 kind, 14 evicted, 15 has tags
/// ```
///
/// Copies share as ``ChunkedColumn`` does (a snapshot holds one while it is encoded). Every write
/// of a slot writes its chunk, even when only its tags changed: a chunk that is still the same
/// object is what tells the saved index's incremental encoder that a range of slots, their tags
/// and owners included, did not change (a place in the owner table never changes meaning).
struct StatColumn {
    private struct PackedStat {
        var size: Int64
        var modified: Int64
        var created: Int64
        var changed: Int64
        var inode: UInt64
        var modeAndFlags: UInt32
        var owner: UInt32
    }

    private static let modeMask: UInt32 = 0o7777
    private static let kindShift: UInt32 = 12
    private static let evictedFlag: UInt32 = 1 << 14
    private static let taggedFlag: UInt32 = 1 << 15

    private var packed = ChunkedColumn<PackedStat>()
    /// (uid, gid) pairs by place; `ownerPlaces` finds a pair's place.
    private var owners: [UInt64] = []
    private var ownerPlaces: [UInt64: UInt32] = [:]
    /// Tags of the slots that have any.
    private var tags: [Int: [String]] = [:]

    init() {}

    var count: Int { packed.count }

    static var chunkShift: Int { ChunkedColumn<PackedStat>.chunkShift }
    static var chunkSize: Int { ChunkedColumn<PackedStat>.chunkSize }

    subscript(position: Int) -> FileStat {
        get {
            let p = packed[position]
            let pair = owners[Int(p.owner)]
            let kind = FileStat.Kind(rawValue: UInt8(truncatingIfNeeded: (p.modeAndFlags >> Self.kindShift) & 3))!
            var stat = FileStat(kind: kind, size: p.size, modified: p.modified, created: p.created, changed: p.changed,
                                mode: p.modeAndFlags & Self.modeMask, uid: UInt32(truncatingIfNeeded: pair >> 32),
                                gid: UInt32(truncatingIfNeeded: pair), inode: p.inode,
                                tags: p.modeAndFlags & Self.taggedFlag != 0 ? tags[position] ?? [] : [])
            stat.evicted = p.modeAndFlags & Self.evictedFlag != 0
            return stat
        }
        set {
            let had = packed[position].modeAndFlags & Self.taggedFlag != 0
            packed[position] = pack(newValue)
            if !newValue.tags.isEmpty { tags[position] = newValue.tags } else if had { tags[position] = nil }
        }
    }

    mutating func append(_ stat: FileStat) {
        let position = packed.count
        packed.append(pack(stat))
        if !stat.tags.isEmpty { tags[position] = stat.tags }
    }

    mutating func reserveCapacity(_ capacity: Int) { packed.reserveCapacity(capacity) }

    func chunkOwner(_ c: Int) -> AnyObject { packed.chunkOwner(c) }

    private mutating func pack(_ stat: FileStat) -> PackedStat {
        var flags = (stat.mode & Self.modeMask) | UInt32(stat.kind.rawValue) << Self.kindShift
        if stat.evicted { flags |= Self.evictedFlag }
        if !stat.tags.isEmpty { flags |= Self.taggedFlag }
        return PackedStat(size: stat.size, modified: stat.modified, created: stat.created, changed: stat.changed,
                          inode: stat.inode, modeAndFlags: flags, owner: place(uid: stat.uid, gid: stat.gid))
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
