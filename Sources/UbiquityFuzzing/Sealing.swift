import UbiquityBinary

/// What the checks use to make a checksummed format's checksums and lengths right on fuzzed
/// bytes, so that the fuzzer gets past them into the decoder behind.
enum Sealing {
    /// `value`'s bytes, little-endian.
    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// The daemon's saved files' header — magic (8), format (4), body length (8), CRC-32 of the
    /// body (4) — made to match the body after it; `bytes` shorter than the header as they are.
    static func withBodyLengthAndChecksum(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= savedFileHeaderSize else { return bytes }
        var out = bytes
        let body = bytes[savedFileHeaderSize...]
        write(UInt64(body.count), into: &out, at: 12)
        write(CRC32.checksum(body), into: &out, at: 20)
        return out
    }

    /// The size of that header (the saved index's and the remembered answers').
    static let savedFileHeaderSize = 24

    /// Writes `value` little-endian into `bytes` at `offset` (which has room for it).
    static func write<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<(offset + MemoryLayout<T>.size), with: littleEndian(value))
    }
}
