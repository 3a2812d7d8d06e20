/// Appends a segment's fields: fixed-width little-endian integers, LEB128 varints, zigzag varints.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func littleEndian<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: 0, to: T.bitWidth, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// Unsigned LEB128: seven bits a byte, low bits first, the high bit set on all but the last.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func varint(_ value: Int) { varint(UInt64(value)) }

    /// Zigzag (0, -1, 1, -2, … as 0, 1, 2, 3, …) then LEB128: small magnitudes stay short.
    mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    /// A varint length, then the bytes.
    mutating func lengthPrefixed<Bytes: Collection<UInt8>>(_ data: Bytes) {
        varint(data.count)
        bytes.append(contentsOf: data)
    }

    mutating func append<Bytes: Sequence<UInt8>>(contentsOf data: Bytes) { bytes.append(contentsOf: data) }

    /// Overwrites four bytes at `offset` with `value`, little-endian (a length known only at the end).
    mutating func patch(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
}
