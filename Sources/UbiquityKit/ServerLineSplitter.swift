package import NIOCore
import UbiquityProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Cuts the daemon's stream, a read at a time, into lines (`\n`; a `\r` before it is dropped, as
/// NIO's `LineBasedFrameDecoder` does). Pure logic: ``ServerLineReader`` hands it the reads.
///
/// A line that runs past ``listedFrom`` bytes is most likely an answer: 20–30 MB for 100k items,
/// sent over tens of milliseconds. Its first list of items is then taken a read at a time
/// (``ItemListScan``): the items stay in the buffers they were read into, are checked while the
/// rest is on its way, and are handed on after each read (``ArrivingItems``); only the bytes
/// around the list are gathered. Gathering such a line into one buffer, grown and copied to the
/// next power of two, cost `ubiq query` about 27 ms of CPU per 19 MB, most of it page faults.
/// Any other line is gathered, its end searched for with `memchr` in each read once.
package struct ServerLineSplitter {
    /// Lines this long and longer have their first item list taken apart; shorter ones are
    /// gathered whole quickly enough.
    static let listedFrom = 1 << 16

    /// The longest line accepted, as sent (``UbiquityConnection/defaultMaxLineBytes``).
    let maxLineBytes: Int

    /// The current line's bytes so far; for a line whose item list is taken apart, those after
    /// the list's last kept item, once the scan is over. A stored property, written in place:
    /// held anywhere else while it grows, every read would copy it whole.
    private var gathered = ByteBuffer()
    /// The current line is long, and its item list was not found near its start.
    private var unlisted = false
    /// Set while the current line's first item list is taken apart.
    private var listing: Listing?
    /// How many bytes of the current line have arrived.
    private(set) var pendingBytes = 0

    private struct Listing {
        /// The line up to the list's `[`, included.
        var head: ByteBuffer
        /// What it says.
        var list: ListHead
        var scan = ItemListScan()
        /// The scan is over: ``ServerLineSplitter/gathered`` holds the rest of the line.
        var isOver = false
    }

    package init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Takes one read's bytes and appends the lines they complete. Lines completed before an
    /// error are appended before it is thrown.
    ///
    /// - Throws: ``UbiquityKitError/responseTooLarge(limit:)`` when a line runs past ``maxLineBytes``.
    package mutating func split(_ read: ByteBuffer, into lines: inout [ServerInput]) throws(UbiquityKitError) {
        var read = read
        while read.readableBytes > 0 {
            guard listing?.isOver == false else {
                try gather(&read, counted: true, into: &lines)
                continue
            }
            guard let rest = try scan(&read, into: &lines) else { return }
            listing?.isOver = true
            // Bytes held over come before the rest of this read; they were counted. Whatever
            // follows a `\n` among them starts the next line, read anew.
            var held = ByteBuffer(bytes: rest)
            try gather(&held, counted: false, into: &lines)
            // Held-over bytes hold a `\n` only when the scan took the whole read (ItemListScan's
            // held-over bytes end the scan as soon as they do): nothing of the read is left behind them.
            assert(held.readableBytes == 0 || read.readableBytes == 0)
            if held.readableBytes > 0 { try split(held, into: &lines) }
        }
    }

    /// Gathers the read up to its first `\n`: the line is then complete (the read moved past the
    /// `\n`); otherwise all of it is taken.
    private mutating func gather(_ read: inout ByteBuffer, counted: Bool, into lines: inout [ServerInput]) throws(UbiquityKitError) {
        guard let end = Self.newline(in: read) else {
            if counted { try count(read.readableBytes) }
            gathered.writeBuffer(&read)
            if listing == nil, !unlisted, gathered.readableBytes >= Self.listedFrom { try startListing(into: &lines) }
            return
        }
        if counted { try count(end) }
        // Never nil: `end` bytes are readable.
        var part = read.readSlice(length: end) ?? ByteBuffer()
        read.moveReaderIndex(forwardBy: 1)
        var line: ByteBuffer
        if let listing {
            line = listing.head
            line.writeBuffer(&gathered)
            line.writeBuffer(&part)
        } else if gathered.readableBytes == 0 {
            line = part
        } else {
            gathered.writeBuffer(&part)
            line = gathered
        }
        let listed = listing.map { (listStart: $0.list.listStart, count: $0.scan.count) }
        gathered = ByteBuffer()
        listing = nil
        unlisted = false
        pendingBytes = 0
        lines.append(.line(ServerLine(bytes: Self.droppingReturn(line), listStart: listed?.listStart ?? 0,
                                      listedCount: listed?.count ?? 0)))
    }

    /// The line gathered so far is long: take its first item list apart, when it is there.
    private mutating func startListing(into lines: inout [ServerInput]) throws(UbiquityKitError) {
        guard let list = gathered.withUnsafeReadableBytes({ ItemListScan.head(of: $0) }) else {
            unlisted = true
            return
        }
        // The bytes after the `[` are the list's first read; none of them is a `\n`.
        var first = gathered
        gathered = ByteBuffer()
        let head = first.readSlice(length: list.listStart + 1) ?? ByteBuffer()  // never nil: the `[` was read
        listing = Listing(head: head, list: list)
        pendingBytes -= first.readableBytes     // counted again as the scan takes them
        guard let rest = try scan(&first, into: &lines) else { return }
        listing?.isOver = true
        try count(first.readableBytes)
        gathered.writeBytes(rest)
        gathered.writeBuffer(&first)
    }

    /// Hands the read to the scan, and the items it kept on. Nil while the list goes on past the
    /// read (all of it taken); otherwise the bytes that start the rest of the line, the read
    /// moved to where it goes on.
    private mutating func scan(_ read: inout ByteBuffer, into lines: inout [ServerInput]) throws(UbiquityKitError) -> [UInt8]? {
        guard var listing else { return nil }
        self.listing = nil      // no second reference to its arrays while the scan appends to them
        defer { self.listing = listing }
        let end = read.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            listing.scan.take(bytes, keptBy: storage.takeUnretainedValue())
        }
        let pieces = listing.scan.takePieces()
        if !pieces.isEmpty { lines.append(.arriving(ArrivingItems(head: listing.list, pieces: pieces))) }
        guard let end else {
            // A line that ends inside its list (never sent by the daemon): end the scan, or it
            // would wait for bytes that may never come. What follows the `\n` is the next line's.
            let nextLine = listing.scan.bytesAfterCarriedNewline
            // Not counted: the `\n` (as for any line) and what follows it.
            try count(read.readableBytes - (nextLine.map { $0 + 1 } ?? 0))
            read.moveReaderIndex(forwardBy: read.readableBytes)
            return nextLine == nil ? nil : listing.scan.end()
        }
        try count(end.index)
        read.moveReaderIndex(forwardBy: end.index)
        return end.prefix
    }

    /// The storage of the bytes gathered so far (tests: it must grow in place).
    var gatheredStorage: ObjectIdentifier {
        gathered.withUnsafeReadableBytesWithStorageManagement { _, storage in ObjectIdentifier(storage.takeUnretainedValue()) }
    }

    /// Counts bytes of the current line.
    private mutating func count(_ bytes: Int) throws(UbiquityKitError) {
        pendingBytes += bytes
        if pendingBytes > maxLineBytes { throw .responseTooLarge(limit: maxLineBytes) }
    }

    /// Where the first `\n` of the readable bytes is.
    private static func newline(in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress, let at = memchr(base, Int32(UInt8(ascii: "\n")), raw.count) else { return nil }
            return UnsafeRawPointer(at) - base
        }
    }

    private static func droppingReturn(_ line: ByteBuffer) -> ByteBuffer {
        guard line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\r") else { return line }
        var line = line
        line.moveWriterIndex(to: line.writerIndex - 1)
        return line
    }
}
