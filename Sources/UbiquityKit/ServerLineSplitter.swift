import NIOCore
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
/// around the list are gathered. Gathering such a line
/// into one buffer, grown and copied to the next power of two, cost `ubiq query` about 27 ms of
/// CPU per 19 MB, most of it page faults. Any other line is gathered, its end searched for with
/// `memchr` in each read once.
struct ServerLineSplitter {
    /// Lines this long and longer have their first item list taken apart; shorter ones are
    /// gathered whole quickly enough.
    static let listedFrom = 1 << 16

    /// The longest line accepted, as sent (``UbiquityConnection/defaultMaxLineBytes``).
    let maxLineBytes: Int

    private enum State {
        /// Gathering a line whose end has not arrived. `unlisted`: it is long, and its item list
        /// was not found near its start.
        case gathering(ByteBuffer, unlisted: Bool)
        /// A long line's first item list is being taken apart.
        case listing(Listing)
    }

    private struct Listing {
        /// The line up to the list's `[`, included.
        var head: ByteBuffer
        /// What it says.
        var list: ListHead
        var scan = ItemListScan()
        /// Once the scan is over: the line after the items it kept, so far.
        var rest: ByteBuffer?
    }

    private var state = State.gathering(ByteBuffer(), unlisted: false)
    /// How many bytes of the current line have arrived.
    private(set) var pendingBytes = 0

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Takes one read's bytes and appends the lines they complete.
    ///
    /// - Throws: ``UbiquityKitError/responseTooLarge(limit:)`` when a line runs past ``maxLineBytes``.
    mutating func split(_ read: ByteBuffer, into lines: inout [ServerInput]) throws {
        var read = read
        while read.readableBytes > 0 {
            // Taken out of `state` while it changes: a second reference would make every write
            // to its buffers a copy.
            let current = state
            state = .gathering(ByteBuffer(), unlisted: false)
            switch current {
            case .gathering(let buffer, let unlisted):
                try gather(into: buffer, unlisted: unlisted, from: &read, into: &lines)
            case .listing(var listing):
                if listing.rest == nil {
                    guard let rest = try scan(&listing, from: &read, into: &lines) else {
                        state = .listing(listing)
                        return
                    }
                    listing.rest = ByteBuffer()
                    // Bytes held over come before the rest of this read; they were counted.
                    var held = ByteBuffer(bytes: rest)
                    state = .listing(listing)
                    try split(held: &held, into: &lines)
                    continue
                }
                state = .listing(listing)
                try gatherRest(from: &read, counted: true, into: &lines)
            }
        }
    }

    /// Bytes of the line already counted (the scan's held-over ones), then the read.
    private mutating func split(held: inout ByteBuffer, into lines: inout [ServerInput]) throws {
        guard case .listing = state else { return }
        try gatherRest(from: &held, counted: false, into: &lines)
        // Whatever followed a `\n` among them starts the next line: it is read anew.
        if held.readableBytes > 0 { try split(held, into: &lines) }
    }

    private mutating func gather(into buffer: ByteBuffer, unlisted: Bool, from read: inout ByteBuffer,
                                 into lines: inout [ServerInput]) throws {
        var buffer = buffer
        if let end = Self.newline(in: read) {
            try count(end)
            var part = read.readSlice(length: end) ?? ByteBuffer()   // never nil: `end` bytes are readable
            read.moveReaderIndex(forwardBy: 1)
            if buffer.readableBytes == 0 {
                buffer = part
            } else {
                buffer.writeBuffer(&part)
            }
            emit(ServerLine(bytes: Self.droppingReturn(buffer)), into: &lines)
            return
        }
        try count(read.readableBytes)
        buffer.writeBuffer(&read)
        guard !unlisted, buffer.readableBytes >= Self.listedFrom else {
            state = .gathering(buffer, unlisted: unlisted)
            return
        }
        guard let list = buffer.withUnsafeReadableBytes({ ItemListScan.head(of: $0) }) else {
            state = .gathering(buffer, unlisted: true)
            return
        }
        // The bytes after the `[` are the list's first; none of them is a `\n`.
        let head = buffer.readSlice(length: list.listStart + 1) ?? ByteBuffer()  // never nil: the `[` was read
        var listing = Listing(head: head, list: list)
        pendingBytes -= buffer.readableBytes     // counted again as the scan takes them
        guard let rest = try scan(&listing, from: &buffer, into: &lines) else {
            state = .listing(listing)
            return
        }
        listing.rest = ByteBuffer(bytes: rest)
        try count(buffer.readableBytes)
        listing.rest?.writeBuffer(&buffer)
        state = .listing(listing)
    }

    /// Hands the read to the scan. Nil while the list goes on past it (all of it taken);
    /// otherwise the bytes that start the rest of the line, the read moved to where it goes on.
    private mutating func scan(_ listing: inout Listing, from read: inout ByteBuffer,
                               into lines: inout [ServerInput]) throws -> [UInt8]? {
        let end = read.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            listing.scan.take(bytes, keptBy: storage.takeUnretainedValue())
        }
        let pieces = listing.scan.takePieces()
        if !pieces.isEmpty { lines.append(.arriving(ArrivingItems(head: listing.list, pieces: pieces))) }
        guard let end else {
            try count(read.readableBytes)
            read.moveReaderIndex(forwardBy: read.readableBytes)
            // A line that ends inside its list (never sent by the daemon): end the scan, or it
            // would wait for bytes that may never come.
            return listing.scan.carriesNewline ? listing.scan.end() : nil
        }
        try count(end.index)
        read.moveReaderIndex(forwardBy: end.index)
        return end.prefix
    }

    /// The rest of a listed line: gathered up to its `\n`, then the line is complete.
    private mutating func gatherRest(from read: inout ByteBuffer, counted: Bool, into lines: inout [ServerInput]) throws {
        guard case .listing(var listing) = state, var rest = listing.rest else { return }
        state = .gathering(ByteBuffer(), unlisted: false)
        listing.rest = nil
        guard let end = Self.newline(in: read) else {
            if counted { try count(read.readableBytes) }
            rest.writeBuffer(&read)
            listing.rest = rest
            state = .listing(listing)
            return
        }
        if counted { try count(end) }
        var part = read.readSlice(length: end) ?? ByteBuffer()     // never nil: `end` bytes are readable
        read.moveReaderIndex(forwardBy: 1)
        rest.writeBuffer(&part)
        var bytes = listing.head
        bytes.writeBuffer(&rest)
        emit(ServerLine(bytes: Self.droppingReturn(bytes), listStart: listing.list.listStart, listedCount: listing.scan.count),
             into: &lines)
    }

    private mutating func emit(_ line: ServerLine, into lines: inout [ServerInput]) {
        lines.append(.line(line))
        pendingBytes = 0
        state = .gathering(ByteBuffer(), unlisted: false)
    }

    /// Counts bytes of the current line.
    private mutating func count(_ bytes: Int) throws {
        pendingBytes += bytes
        if pendingBytes > maxLineBytes { throw UbiquityKitError.responseTooLarge(limit: maxLineBytes) }
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
