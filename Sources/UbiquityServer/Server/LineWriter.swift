import NIOCore
import UbiquityJSON
import UbiquityProtocol

/// Writes whole lines; many tasks may write, each line stays whole.
///
/// A result set is encoded a piece (``pieceBytes``) at a time, straight into the buffer the
/// socket is handed, each piece handed on before the next is encoded: the client reads the first items of a 100k-item answer while the
/// server still encodes the last, and the server's buffers are a few pieces, reused, instead of
/// the whole answer freshly mapped for every answer. ``WriteTurn`` keeps other lines out of a
/// line being written in pieces; the outbound writer's backpressure (the channel's write-buffer
/// watermarks) stops the encoding while the client does not read.
struct LineWriter: Sendable {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    /// Told when a result set, or a query's notifications, begin (`true`) and end (`false`) being
    /// written: the daemon's background work (the watcher's tag pass) waits meanwhile
    /// (``QueryEngine/answering(_:)``).
    private let answering: @Sendable (Bool) -> Void
    private let turn = WriteTurn()

    /// How big a piece is: NIO rounds a buffer up to a power of two, and one of 64 KiB stays
    /// below glibc's mmap threshold as the daemon sets it (128 KiB), so the pieces come from the
    /// heap and are reused rather than mapped and zeroed each time (at 64 KiB exactly, every
    /// piece of a 27 MB answer was an `mmap` and a `munmap`).
    static let pieceBytes = 60 << 10
    /// How many pieces go to the event loop at once: each hand-over wakes it.
    static let piecesPerHandOver = 4

    init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, answering: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.outbound = outbound
        self.answering = answering
    }

    /// - Returns: The bytes written, newline included.
    @discardableResult
    func write(_ json: JSONValue) async throws -> Int {
        try await write(line: JSONLine.encodeLine(json))
    }

    /// Writes a line already encoded, `\n` included.
    ///
    /// - Returns: The bytes written.
    @discardableResult
    func write(line: [UInt8]) async throws -> Int {
        try await write(lines: [.bytes(line)])
        return line.count
    }

    /// Writes lines in this order, none of another task's between them.
    /// - Parameter notifying: Whether they carry live queries' notifications: like a result set,
    ///   the tag pass leaves the processor to them (with a thousand queries, a change's
    ///   notifications take several milliseconds, and the pass took half the daemon's processor
    ///   from a fan-out right after a start).
    func write(lines: [OutgoingLine], notifying: Bool = false) async throws {
        let answers = notifying || lines.contains { if case .results = $0 { true } else { false } }
        if answers { answering(true) }
        defer { if answers { answering(false) } }
        try await turn.run {
            var pieces = Pieces(outbound: outbound)
            for line in lines {
                switch line {
                case .bytes(let bytes):
                    try await pieces.add(bytes)
                case .results(var results):
                    while !results.isFinished {
                        let written = pieces.current.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { results.write(into: $0) }
                        if results.isFinished { break }
                        if written == 0 && pieces.current.readableBytes == 0 {
                            // A row longer than a whole piece: written on its own, however long.
                            var row: [UInt8] = []
                            results.write(to: &row, atLeast: 1)
                            try await pieces.add(row)
                        } else {
                            try await pieces.endPiece()
                        }
                    }
                }
                if pieces.current.readableBytes >= Self.pieceBytes { try await pieces.endPiece() }
            }
            try await pieces.finish()
        }
    }

    /// The pieces of one write: the one being written, and those ready to go.
    private struct Pieces {
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        /// Written into directly (``ResultLine/write(into:)``), handed on as it is.
        var current: ByteBuffer
        var ready: [ByteBuffer] = []

        init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
            self.outbound = outbound
            current = Self.newPiece()
        }

        private static func newPiece() -> ByteBuffer { ByteBufferAllocator().buffer(capacity: LineWriter.pieceBytes) }

        /// A line already encoded: into the current piece, or, when it is a piece or more
        /// itself (a big update), into a buffer of its own rather than through the piece.
        mutating func add(_ line: [UInt8]) async throws {
            guard line.count >= LineWriter.pieceBytes else {
                if current.writableBytes < line.count { try await endPiece() }
                current.writeBytes(line)
                return
            }
            if current.readableBytes > 0 { try await endPiece() }
            ready.append(ByteBuffer(bytes: line))
            if ready.count >= LineWriter.piecesPerHandOver { try await handOver() }
        }

        /// Hands the current piece on (with the others ready, when there are enough) and starts
        /// a new one.
        mutating func endPiece() async throws {
            guard current.readableBytes > 0 else { return }
            if current.readableBytes < LineWriter.pieceBytes / 4 {
                // A short piece (a few events, the end of a write) goes in a buffer of its own
                // size and the piece is used again: NIO holds what it is handed until the socket
                // takes it, and for a peer that does not read, thousands of one-event writes each
                // pinned a whole piece (28 MB of the daemon for 1 MiB of pending lines).
                ready.append(ByteBuffer(bytes: current.readableBytesView))
                current.clear()
            } else {
                ready.append(current)
                current = Self.newPiece()
            }
            if ready.count >= LineWriter.piecesPerHandOver { try await handOver() }
        }

        mutating func finish() async throws {
            try await endPiece()
            try await handOver()
        }

        private mutating func handOver() async throws {
            guard !ready.isEmpty else { return }
            let buffers = ready
            ready.removeAll(keepingCapacity: true)
            try await outbound.write(contentsOf: buffers)
        }
    }
}
