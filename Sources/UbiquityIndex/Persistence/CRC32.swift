internal import CZlib

/// CRC-32 (IEEE 802.3, the polynomial of zlib and gzip), computed by zlib: catches a torn or
/// flipped byte in a saved index or a journal record.
enum CRC32 {
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        // crc32_z of a null buffer is the initial value, 0: the CRC of no bytes.
        bytes.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32_z(0, $0.baseAddress, $0.count)) }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 { checksum(bytes[...]) }

    /// The CRC of `a`'s bytes followed by `length` bytes whose CRC is `b`.
    static func combine(_ a: UInt32, _ b: UInt32, length: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_combine(UInt(a), UInt(b), Int(length)))
    }
}
