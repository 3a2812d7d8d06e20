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
        try await outbound.write(ByteBuffer(bytes: line))
        return line.count
    }
}
