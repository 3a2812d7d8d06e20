import UbiquityProtocol

/// A line on its way to a client: bytes already encoded, or a whole result set that
/// ``LineWriter`` encodes a piece at a time as the socket takes it.
enum OutgoingLine: Sendable {
    /// A complete line, `\n` included.
    case bytes([UInt8])
    case results(ResultLine<EngineRows>)
}

extension OutgoingLine {
    /// The whole line in one buffer, `\n` included.
    func whole() -> [UInt8] {
        switch self {
        case .bytes(let bytes): bytes
        case .results(var results): results.whole()
        }
    }
}
