internal import CZlib

/// CRC-32 (IEEE 802.3, the polynomial of zlib, gzip and Python's `zlib.crc32`), computed by zlib:
/// catches a torn or flipped byte in a saved index, a journal record or a store segment. It is no
/// defence against a hostile writer, which can compute it too; the readers' limits are.
public enum CRC32 {
    public static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        // crc32_z of a null buffer is the initial value, 0: the CRC of no bytes.
        bytes.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32_z(0, $0.baseAddress, $0.count)) }
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 { checksum(bytes[...]) }

    /// The CRC of bytes whose CRC so far is `crc` followed by `bytes`: a long checksum in pieces.
    public static func checksum(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32_z(UInt(crc), $0.baseAddress, $0.count)) }
    }

    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_z(0, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count))
    }

    /// The CRC of `a`'s bytes followed by `length` bytes whose CRC is `b`.
    public static func combine(_ a: UInt32, _ b: UInt32, length: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_combine(UInt(a), UInt(b), Int(length)))
    }
}
