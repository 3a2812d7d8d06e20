/// A handful of fields encoded into a small buffer on the stack, then appended to a
/// ``ByteWriter`` in one copy (``ByteWriter/scratch(_:)``): the bytes are those the writer's own
/// methods of the same names write.
///
/// Why: appended a byte at a time, each append checking the array's capacity and uniqueness, a
/// status's dozen fields were most of encoding a million-entry journal record (`perf`: a
/// restart's check at 1M, where that record is written beside the index's work).
public struct ByteScratch: ~Copyable {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    /// Bytes written so far.
    @usableFromInline var written = 0
    public var count: Int { written }

    /// The most bytes one encoding may write: a status's fixed fields take at most 74.
    public static let capacity = 128

    @inlinable init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Room for `bytes` more; running out is a programming error (a field list longer than
    /// ``capacity``), not something input can cause: every field has a fixed maximum width.
    @inlinable mutating func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(written + bytes <= capacity, "ByteScratch: more than \(capacity) bytes")
        defer { written += bytes }
        return base + written
    }

    @inlinable public mutating func byte(_ value: UInt8) { reserve(1).pointee = value }

    @inlinable public mutating func int64(_ value: Int64) {
        let at = reserve(8)
        for i in 0..<8 { at[i] = UInt8(truncatingIfNeeded: value >> (8 * Int64(i))) }
    }

    /// LEB128, as ``ByteWriter/varint(_:)-(UInt64)``.
    @inlinable public mutating func varint(_ value: UInt64) {
        precondition(written + 10 <= capacity, "ByteScratch: more than \(capacity) bytes")
        var rest = value
        while rest >= 0x80 {
            base[written] = UInt8(truncatingIfNeeded: rest) | 0x80
            written += 1
            rest >>= 7
        }
        base[written] = UInt8(rest)
        written += 1
    }

    @inlinable public mutating func varint(_ value: Int) { varint(UInt64(bitPattern: Int64(value))) }
    @inlinable public mutating func varint(_ value: UInt32) { varint(UInt64(value)) }

    /// Zigzag, then LEB128, as ``ByteWriter/zigzag(_:)``.
    @inlinable public mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }
}

extension ByteWriter {
    /// Encodes through `body` into a scratch buffer of ``ByteScratch/capacity`` bytes, then
    /// appends what it wrote.
    @inlinable public mutating func scratch(_ body: (inout ByteScratch) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteScratch.capacity) { buffer in
            var scratch = ByteScratch(base: buffer.baseAddress!, capacity: buffer.count)
            body(&scratch)
            storage.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: scratch.count))
        }
    }
}
