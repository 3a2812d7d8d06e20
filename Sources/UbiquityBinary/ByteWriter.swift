/// Appends values to a byte buffer: fixed-width integers little-endian, counts and small numbers
/// as LEB128 varints, signed differences zigzag-encoded, strings and byte runs as a varint length
/// and their bytes. The saved index (UbiquityIndex) and store segments (UbiquityStore) write
/// through it; each format's reader reads it back.
///
/// Inlinable: the index's snapshot encoder calls it for every field of every item.
public struct ByteWriter: Sendable {
    @usableFromInline var storage: [UInt8] = []

    /// What was written so far.
    @inlinable public var bytes: [UInt8] { storage }

    @inlinable public init(capacity: Int = 0) { storage.reserveCapacity(capacity) }

    @inlinable public mutating func byte(_ value: UInt8) { storage.append(value) }

    /// The value's bytes, least significant first, as many as its type is wide.
    @inlinable public mutating func littleEndian<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: 0, to: T.bitWidth, by: 8) { storage.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    @inlinable public mutating func fixed32(_ value: UInt32) { littleEndian(value) }
    @inlinable public mutating func fixed64(_ value: UInt64) { littleEndian(value) }
    /// Two's complement, eight bytes.
    @inlinable public mutating func int64(_ value: Int64) { littleEndian(value) }

    /// Unsigned LEB128: seven bits a byte, low bits first, the high bit set on all but the last.
    @inlinable public mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            storage.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        storage.append(UInt8(rest))
    }

    /// A count or position. A negative value (which no caller writes) takes its two's complement
    /// bit pattern, ten bytes, rather than trapping; readers refuse it as out of range.
    @inlinable public mutating func varint(_ value: Int) { varint(UInt64(bitPattern: Int64(value))) }
    @inlinable public mutating func varint(_ value: UInt32) { varint(UInt64(value)) }

    /// A signed number that is usually small (a difference of two times): zigzag (0, -1, 1, -2, …
    /// as 0, 1, 2, 3, …), then LEB128.
    @inlinable public mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    /// A varint length, then the bytes.
    @inlinable public mutating func lengthPrefixed<Bytes: Collection<UInt8>>(_ data: Bytes) {
        varint(data.count)
        storage.append(contentsOf: data)
    }

    /// A varint length, then the UTF-8 bytes.
    @inlinable public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { lengthPrefixed($0) }
    }

    /// One byte: 1 or 0.
    @inlinable public mutating func bool(_ value: Bool) { storage.append(value ? 1 : 0) }

    @inlinable public mutating func append<Bytes: Sequence<UInt8>>(contentsOf data: Bytes) { storage.append(contentsOf: data) }

    /// Overwrites four bytes at `offset` with `value`, little-endian (a length known only at the
    /// end). `offset + 4` must not pass what was written.
    @inlinable public mutating func patch(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { storage[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
}
