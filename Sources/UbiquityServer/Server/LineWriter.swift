import NIOCore
import UbiquityPredicate
import UbiquityProtocol

/// Writes whole lines; many tasks may write, each line stays whole.
///
/// A result set is encoded a piece (``pieceBytes``) at a time, each piece handed to the socket
/// before the next is encoded: the client reads the first items of a 100k-item answer while the
/// server still encodes the last, and the server's buffers are a few pieces, reused, instead of
/// the whole answer freshly mapped for every answer. ``WriteTurn`` keeps other lines out of a
/// line being written in pieces; the outbound writer's backpressure (the channel's write-buffer
/// watermarks) stops the encoding while the client does not read.
struct LineWriter: Sendable {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let turn = WriteTurn()

    /// How many bytes are encoded before they are handed on: NIO rounds a buffer up to a power of
    /// two, and one of 64 KiB stays below glibc's mmap threshold as the daemon sets it (128 KiB),
    /// so the pieces come from the heap and are reused rather than mapped and zeroed each time
    /// (at 64 KiB exactly, every piece of a 27 MB answer was an `mmap` and a `munmap`).
    static let pieceBytes = 60 << 10
    /// How many pieces go to the event loop at once: each hand-over wakes it.
    static let piecesPerHandOver = 4

    init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.outbound = outbound
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
    func write(lines: [OutgoingLine]) async throws {
        try await turn.run {
            var pieces = Pieces(outbound: outbound)
            for line in lines {
                switch line {
                case .bytes(let bytes):
                    try await pieces.add(bytes)
                case .results(var results):
                    while true {
                        results.write(to: &pieces.current, atLeast: Self.pieceBytes)
                        if results.isFinished { break }
                        try await pieces.endPiece()
                    }
                }
                if pieces.current.count >= Self.pieceBytes { try await pieces.endPiece() }
            }
            try await pieces.finish()
        }
    }

    /// The pieces of one write: the one being encoded, and those ready to go.
    private struct Pieces {
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        var current: [UInt8] = []
        var ready: [ByteBuffer] = []

        init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
            self.outbound = outbound
            current.reserveCapacity(LineWriter.pieceBytes + LineWriter.pieceBytes / 4)
        }

        /// A line already encoded: into the current piece, or, when it is a piece or more
        /// itself (a big update), straight into a buffer of its own rather than copied twice.
        mutating func add(_ line: [UInt8]) async throws {
            guard line.count >= LineWriter.pieceBytes else { return current.append(contentsOf: line) }
            if !current.isEmpty { try await endPiece() }
            ready.append(ByteBuffer(bytes: line))
            if ready.count >= LineWriter.piecesPerHandOver { try await handOver() }
        }

        /// Copies the current piece into one of NIO's buffers; hands the ready ones on when
        /// there are enough.
        mutating func endPiece() async throws {
            var buffer = ByteBufferAllocator().buffer(capacity: current.count)
            buffer.writeBytes(current)
            current.removeAll(keepingCapacity: true)
            ready.append(buffer)
            if ready.count >= LineWriter.piecesPerHandOver { try await handOver() }
        }

        mutating func finish() async throws {
            if !current.isEmpty { try await endPiece() }
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
