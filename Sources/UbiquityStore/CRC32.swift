internal import CZlib

/// CRC-32 (IEEE 802.3, as Python's `zlib.crc32`), computed by zlib: the checksum at the end of
/// every segment, which catches a torn or flipped byte. It is not a defence against a hostile
/// device, which can compute it too; the decoder's limits are.
enum CRC32 {
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        // crc32_z of a null buffer is the initial value, 0: the CRC of no bytes.
        bytes.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32_z(0, $0.baseAddress, $0.count)) }
    }
}
