import CUbiquitySystem
import NIOCore
import UbiquityPredicate
import UbiquityProtocol

/// Writes whole lines; many tasks may write, each line stays whole.
struct LineWriter: Sendable {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

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
        try await outbound.write(Self.buffer([line]))
        return line.count
    }

    /// Writes lines already encoded, in this order, in one buffer (each copied once).
    func write(lines: [[UInt8]]) async throws {
        try await outbound.write(Self.buffer(lines))
    }

    /// The lines in one buffer of NIO's, advised for huge pages when it is big enough (see
    /// `ubq_prefer_huge_pages`): a 24 MB answer is copied into it.
    private static func buffer(_ lines: [[UInt8]]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: lines.reduce(0) { $0 + $1.count })
        buffer.withUnsafeMutableWritableBytes { ubq_prefer_huge_pages($0.baseAddress, $0.count) }
        for line in lines { buffer.writeBytes(line) }
        return buffer
    }
}
