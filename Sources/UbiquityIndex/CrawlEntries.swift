import CUbiquitySystem

/// The entries of a ``CrawlListing`` (or of one of its parts): each entry's parent position and
/// status, and every name's UTF-8 bytes one after another, in fixed-size segments
/// (``segmentSize`` entries each, every segment with its own records and its own names' bytes).
///
/// Why not an array of ``CrawlListing/Entry`` with a `String` each: a name over 15 bytes is then a
/// heap block of its own (60–200 bytes each in a tree of long names), allocated by the walking
/// thread among the watch tree's long-lived blocks and freed by the engine thread after the
/// listing is applied. glibc then kept the freed blocks' pages for the walking thread's arena,
/// pinned by the long-lived blocks between them. The walker copies each name straight from its
/// `readdir` buffer (no `String`, no validation beyond the crawler's own, ``UTF8Check``).
///
/// Why segments and not two growing arrays: in a warm crawl of 100k long names, the arrays'
/// doubling (a memmove of everything, page faults on the new buffer, an munmap of the old) and
/// ``part(from:)`` copying every record and name byte again for each part sent ahead were 21% of
/// the walking threads' `perf` samples (9% with segments). Here growth past the first segment
/// (which grows as an array up to a whole one, ``startSegment()``) adds a segment and leaves the
/// others where they are, a full segment is never written again, and a part shares the listing's segments (copy on write: the
/// listing's last, partly filled segment is copied at its next append, at most one per part).
/// A part starts where it is asked to, mid-segment too (``offset``).
///
/// Reading an entry by position (`entries[i]`) still gives a ``CrawlListing/Entry`` with a
/// `String` name, for the code that wants one (diffs, the journal, tests); the hot paths take
/// ``parent(_:)``, ``stat(_:)`` and ``withName(_:_:)``.
///
/// Limits: a name's bytes count is held in 32 bits and its start in an `Int` (the bytes of every
/// name of one segment together: the machine's memory is the limit).
///
/// ```swift
/// var entries = CrawlEntries()
/// entries.append(CrawlListing.Entry(parent: -1, name: "Documents", stat: stat))
/// entries.withName(0) { String(decoding: $0, as: UTF8.self) }   // "Documents"
/// ```
public struct CrawlEntries: RandomAccessCollection, Sendable {
    /// One entry without its name's bytes: where they are in its segment's ``Segment/names``.
    struct Record: Sendable {
        var stat: FileStat
        /// Position of the name's first byte in its segment's names.
        var nameStart: Int
        var parent: Int32
        var nameCount: UInt32
    }

    /// Up to ``segmentSize`` entries and their names' bytes. Its records are reserved whole at
    /// its start, so they never grow by copying, except the first segment's (``startSegment()``).
    struct Segment: Sendable {
        var records: [Record] = []
        var names: [UInt8] = []
    }

    /// Entries per segment: a power of two, so a position's segment is a shift and its place a mask.
    static let segmentShift = 12
    static let segmentSize = 1 << segmentShift
    static let segmentMask = segmentSize - 1

    private var segments: [Segment] = []
    /// Entries of `segments[0]` before this listing's first (a part taken mid-segment).
    private var offset = 0
    private var total = 0

    public init() {}

    /// Entries given with `String` names (tests, the journal, a rescan built by hand).
    public init(_ entries: some Sequence<CrawlListing.Entry>) {
        self.init()
        for entry in entries { append(entry) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { total }

    /// Entry `position`, its name made a `String` (a copy of its bytes).
    public subscript(position: Int) -> CrawlListing.Entry {
        CrawlListing.Entry(parent: parent(position), name: withName(position) { String(decoding: $0, as: UTF8.self) },
                           stat: stat(position))
    }

    /// Entry `position`'s segment and its place there. Traps on a position outside the entries,
    /// as an array's subscript would.
    @inline(__always)
    private func locate(_ position: Int) -> (segment: Int, index: Int) {
        precondition(position >= 0 && position < total, "CrawlEntries: position out of range")
        let at = position + offset
        return (at >> Self.segmentShift, at & Self.segmentMask)
    }

    /// Position of entry `position`'s parent in the listing, -1 for the listing's root.
    @inline(__always)
    public func parent(_ position: Int) -> Int32 {
        let (s, i) = locate(position)
        return segments[s].records[i].parent
    }

    @inline(__always)
    public func stat(_ position: Int) -> FileStat {
        let (s, i) = locate(position)
        return segments[s].records[i].stat
    }

    /// Entry `position`'s kind alone (its status holds an array: retain, release).
    @inline(__always)
    public func kind(_ position: Int) -> FileStat.Kind {
        let (s, i) = locate(position)
        return segments[s].records[i].stat.kind
    }

    /// Replaces entry `position`'s status (the crawler's status of a directory taken again after its watch).
    public mutating func setStat(_ position: Int, _ stat: FileStat) {
        let (s, i) = locate(position)
        segments[s].records[i].stat = stat
    }

    /// How many bytes entry `position`'s name has.
    @inline(__always)
    public func nameCount(_ position: Int) -> Int {
        let (s, i) = locate(position)
        return Int(segments[s].records[i].nameCount)
    }

    /// Lends entry `position`'s name as its UTF-8 bytes (valid UTF-8, no terminator) for the call.
    @inline(__always)
    public func withName<R>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let (s, i) = locate(position)
        // The two fields only, not the record: its status holds an array (retain, release).
        let start = segments[s].records[i].nameStart, count = Int(segments[s].records[i].nameCount)
        return try segments[s].names.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[start..<start + count]))
        }
    }

    /// Adds an entry whose name is `name`'s bytes, which must be valid UTF-8 (the crawler checks
    /// them first, ``UTF8Check``).
    public mutating func append(parent: Int32, name: UnsafeBufferPointer<UInt8>, stat: FileStat) {
        if (offset + total) & Self.segmentMask == 0 { startSegment() }
        let last = segments.count - 1
        segments[last].records.append(Record(stat: stat, nameStart: segments[last].names.count, parent: parent,
                                             nameCount: UInt32(truncatingIfNeeded: name.count)))
        segments[last].names.append(contentsOf: name)
        total += 1
    }

    /// Opens a segment after the last, full one: its records reserved whole, its names' bytes
    /// as many as the last full segment's and an eighth (names of one tree are alike), so neither
    /// grows by copying in the common case; both mapped at once (`MADV_POPULATE_WRITE`).
    ///
    /// Not so the first segment: it starts at ``firstSegmentRecords`` and grows as an array does: most
    /// listings are small (a second walker's subtree, a rescan of one directory), and a whole
    /// segment's records are over the daemon's fixed `mmap` threshold (`UBQ_MMAP_THRESHOLD`), so each such
    /// listing mapped them, faulted in what it used and unmapped them again: in a warm crawl of
    /// 100k long names, 280 mappings, and `munmap` and page faults were a tenth of the crawl's
    /// system time (perf).
    private mutating func startSegment() {
        var segment = Segment()
        segment.records.reserveCapacity(segments.isEmpty ? Self.firstSegmentRecords : Self.segmentSize)
        if let previous = segments.last { segment.names.reserveCapacity(previous.names.count + previous.names.count / 8) }
        if !segments.isEmpty {
            // Filled next, whole: mapped in one call rather than one page fault per 4 KiB as the
            // walk writes it (a listing of 100k long names is about 21 MB of fresh pages).
            let records = segment.records.capacity * MemoryLayout<Record>.stride, names = segment.names.capacity
            segment.records.withUnsafeMutableBufferPointer { ubq_populate_for_writing(UnsafeMutableRawPointer($0.baseAddress), records) }
            segment.names.withUnsafeMutableBufferPointer { ubq_populate_for_writing($0.baseAddress, names) }
        }
        segments.append(segment)
    }

    /// Records reserved by a listing's first segment (``startSegment()``).
    static let firstSegmentRecords = 256

    /// Bytes the segments' records have room for: what a listing holds besides its names.
    var recordBytesReserved: Int { segments.reduce(0) { $0 + $1.records.capacity * MemoryLayout<Record>.stride } }

    public mutating func append(_ entry: CrawlListing.Entry) {
        var name = entry.name
        name.withUTF8 { append(parent: entry.parent, name: $0, stat: entry.stat) }
    }

    /// Adds the entries of another listing of a subtree (a crawl's second walker's), their
    /// parents' positions moved: its root's children (parent -1) go below entry `parent` here.
    /// Copies them (their parents change), segment by segment into ours.
    public mutating func append(contentsOf other: CrawlEntries, under parent: Int32) {
        guard !other.isEmpty else { return }
        let base = Int32(truncatingIfNeeded: total)
        var at = other.offset
        let end = other.offset + other.total
        while at < end {
            let segment = other.segments[at >> Self.segmentShift]
            let stop = Swift.min(end, (at | Self.segmentMask) + 1)
            segment.names.withUnsafeBufferPointer { names in
                for i in (at & Self.segmentMask)..<((stop - 1) & Self.segmentMask) + 1 {
                    let record = segment.records[i]
                    append(parent: record.parent < 0 ? parent : base &+ record.parent,
                           name: UnsafeBufferPointer(rebasing: names[record.nameStart..<record.nameStart + Int(record.nameCount)]),
                           stat: record.stat)
                }
            }
            at = stop
        }
    }

    /// The entries from `position` on, as a part of the listing sends them: the listing's segments
    /// that hold them, shared (no copy), the first from the entry at `position`.
    public func part(from position: Int) -> CrawlEntries {
        var part = CrawlEntries()
        guard position < total else { return part }
        let (s, i) = locate(position)
        part.segments = Array(segments[s...])
        part.offset = i
        part.total = total - position
        return part
    }
}
