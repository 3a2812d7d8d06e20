import UbiquityBinary

/// What the checks use to make a checksummed format's checksums and lengths right on fuzzed
/// bytes, so that the fuzzer gets past them into the decoder behind.
enum Sealing {
    /// `value`'s bytes, little-endian.
    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Writes `value` little-endian into `bytes` at `offset` (which has room for it).
    static func write<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<(offset + MemoryLayout<T>.size), with: littleEndian(value))
    }
}
