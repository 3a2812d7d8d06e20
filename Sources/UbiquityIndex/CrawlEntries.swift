/// The entries of a ``CrawlListing`` (or of one of its parts): each entry's parent position and
/// status in one array, and every name's UTF-8 bytes one after another in one byte buffer.
///
/// Why not an array of ``CrawlListing/Entry`` with a `String` each: a name over 15 bytes is then a
/// heap block of its own (60–200 bytes each in a tree of long names), allocated by the walking
/// thread among the watch tree's long-lived blocks and freed by the engine thread after the
/// listing is applied. glibc then kept the freed blocks' pages for the walking thread's arena,
/// pinned by the long-lived blocks between them. Here a listing is two growing arrays, and the
/// walker copies each name straight from its `readdir` buffer (no `String`, no validation beyond
/// the crawler's own, ``UTF8Check``).
///
/// Reading an entry by position (`entries[i]`) still gives a ``CrawlListing/Entry`` with a
/// `String` name, for the code that wants one (diffs, the journal, tests); the hot paths take
/// ``parent(_:)``, ``stat(_:)`` and ``withName(_:_:)``.
///
/// Limits: a name's bytes count is held in 32 bits and its start in an `Int` (the bytes of every
/// name of one listing together: the machine's memory is the limit).
///
/// ```swift
/// var entries = CrawlEntries()
/// entries.append(CrawlListing.Entry(parent: -1, name: "Documents", stat: stat))
/// entries.withName(0) { String(decoding: $0, as: UTF8.self) }   // "Documents"
/// ```
public struct CrawlEntries: RandomAccessCollection, Sendable {
    /// One entry without its name's bytes: where they are in ``nameBytes``.
    struct Record: Sendable {
        var stat: FileStat
        /// Position of the name's first byte, counted from the listing's first name (a part keeps
        /// the listing's positions; ``nameBase`` says where its own bytes start).
        var nameStart: Int
        var parent: Int32
        var nameCount: UInt32
    }

    private var records: [Record] = []
    private var nameBytes: [UInt8] = []
    /// The position (counted from the listing's first name) of `nameBytes[0]`.
    private var nameBase = 0

    public init() {}

    /// Entries given with `String` names (tests, the journal, a rescan built by hand).
    public init(_ entries: some Sequence<CrawlListing.Entry>) {
        self.init()
        for entry in entries { append(entry) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    /// Entry `position`, its name made a `String` (a copy of its bytes).
    public subscript(position: Int) -> CrawlListing.Entry {
        let record = records[position]
        return CrawlListing.Entry(parent: record.parent, name: withName(position) { String(decoding: $0, as: UTF8.self) },
                                  stat: record.stat)
    }

    /// Position of entry `position`'s parent in the listing, -1 for the listing's root.
    @inline(__always)
    public func parent(_ position: Int) -> Int32 { records[position].parent }

    @inline(__always)
    public func stat(_ position: Int) -> FileStat { records[position].stat }

    /// Replaces entry `position`'s status (the crawler's status of a directory taken again after its watch).
    public mutating func setStat(_ position: Int, _ stat: FileStat) { records[position].stat = stat }

    /// How many bytes entry `position`'s name has.
    @inline(__always)
    public func nameCount(_ position: Int) -> Int { Int(records[position].nameCount) }

    /// Lends entry `position`'s name as its UTF-8 bytes (valid UTF-8, no terminator) for the call.
    @inline(__always)
    public func withName<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let record = records[position]
        return try nameBytes.withUnsafeBufferPointer { all in
            let start = record.nameStart - nameBase
            return try body(UnsafeBufferPointer(rebasing: all[start..<start + Int(record.nameCount)]))
        }
    }

    /// Adds an entry whose name is `name`'s bytes, which must be valid UTF-8 (the crawler checks
    /// them first, ``UTF8Check``).
    public mutating func append(parent: Int32, name: UnsafeBufferPointer<UInt8>, stat: FileStat) {
        records.append(Record(stat: stat, nameStart: nameBase + nameBytes.count, parent: parent,
                              nameCount: UInt32(truncatingIfNeeded: name.count)))
        nameBytes.append(contentsOf: name)
    }

    public mutating func append(_ entry: CrawlListing.Entry) {
        var name = entry.name
        name.withUTF8 { append(parent: entry.parent, name: $0, stat: entry.stat) }
    }

    /// Adds the entries of another listing of a subtree (a crawl's second walker's), their
    /// parents' positions moved: its root's children (parent -1) go below entry `parent` here.
    public mutating func append(contentsOf other: CrawlEntries, under parent: Int32) {
        guard !other.records.isEmpty else { return }
        let base = Int32(truncatingIfNeeded: records.count)
        let shift = nameBase + nameBytes.count - other.records[0].nameStart
        // No reserveCapacity: an exact one per subtree would undo the array's doubling (a copy of every record each time).
        for record in other.records {
            var moved = record
            moved.parent = record.parent < 0 ? parent : base &+ record.parent
            moved.nameStart = record.nameStart + shift
            records.append(moved)
        }
        let start = other.records[0].nameStart - other.nameBase
        nameBytes.append(contentsOf: other.nameBytes[start...])
    }

    /// The entries from `position` on, as a part of the listing sends them: a copy of their
    /// records and of their names' bytes only.
    public func part(from position: Int) -> CrawlEntries {
        var part = CrawlEntries()
        guard position < records.count else { return part }
        let start = records[position].nameStart
        part.records = Array(records[position...])
        part.nameBytes = Array(nameBytes[(start - nameBase)...])
        part.nameBase = start
        return part
    }
}
