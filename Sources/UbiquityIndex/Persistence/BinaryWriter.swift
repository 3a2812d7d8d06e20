/// Appends values to a byte buffer in the saved index's encoding: fixed-width integers little
/// endian, counts and small numbers as LEB128 varints, signed deltas zigzag-encoded, strings as a
/// varint length and their UTF-8 bytes. ``BinaryReader`` reads it back.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func fixed32(_ value: UInt32) { littleEndian(value) }
    mutating func fixed64(_ value: UInt64) { littleEndian(value) }

    private mutating func littleEndian<T: FixedWidthInteger>(_ value: T) {
        for i in 0..<MemoryLayout<T>.size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    mutating func int64(_ value: Int64) { fixed64(UInt64(bitPattern: value)) }

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func varint(_ value: Int) { varint(UInt64(bitPattern: Int64(value))) }
    mutating func varint(_ value: UInt32) { varint(UInt64(value)) }

    /// A signed number that is usually small (a difference of two times): zigzag, then varint.
    mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }
}
