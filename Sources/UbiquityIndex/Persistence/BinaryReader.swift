/// Reads what ``ByteWriter`` wrote, from bytes that may be truncated, corrupt or hostile: every
/// read is bounds-checked and throws ``SavedIndexError`` instead of trapping, and a count is
/// accepted only when the bytes left could hold that many elements (no allocation sized by a
/// number read from the file).
struct BinaryReader {
    private let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = start
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset >= end }

    mutating func byte() throws(SavedIndexError) -> UInt8 {
        guard offset < end else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func fixed32() throws(SavedIndexError) -> UInt32 { try littleEndian() }
    mutating func fixed64() throws(SavedIndexError) -> UInt64 { try littleEndian() }

    private mutating func littleEndian<T: FixedWidthInteger & UnsignedInteger>() throws(SavedIndexError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw .truncated }
        let start = offset
        let value = bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: T.self)) }
        offset += size
        return value
    }

    /// `count` numbers of 32 bits, little-endian, in one copy (the caller checked that the bytes
    /// left hold them: ``count(minimumSize:)`` with 4).
    mutating func fixed32s(_ count: Int) throws(SavedIndexError) -> [UInt32] {
        guard count >= 0, count <= remaining / 4 else { throw .truncated }
        let start = offset
        let values = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBytes { all in
                for k in 0..<count {
                    buffer[k] = UInt32(littleEndian: all.loadUnaligned(fromByteOffset: start + 4 * k, as: UInt32.self))
                }
            }
            initialized = count
        }
        offset += 4 * count
        return values
    }

    mutating func int64() throws(SavedIndexError) -> Int64 { Int64(bitPattern: try fixed64()) }

    mutating func varint() throws(SavedIndexError) -> UInt64 {
        // With eleven bytes left (more than the longest number takes) they are read without a check each:
        // a restore reads ten million numbers.
        if end - offset >= 11 {
            let start = offset
            let (value, length) = bytes.withUnsafeBufferPointer { all -> (UInt64, Int) in
                var value: UInt64 = 0
                var shift: UInt64 = 0
                var i = start
                while shift < 64 {
                    let next = all[i]
                    guard shift < 63 || next <= 1 else { return (0, 0) }
                    value |= UInt64(next & 0x7f) << shift
                    i += 1
                    if next < 0x80 { return (value, i - start) }
                    shift += 7
                }
                return (0, 0)
            }
            guard length > 0 else { throw .invalid("a number is longer than 64 bits") }
            offset += length
            return value
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64, shift < 63 || next <= 1 else { throw .invalid("a number is longer than 64 bits") }
            value |= UInt64(next & 0x7f) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    mutating func uint32() throws(SavedIndexError) -> UInt32 {
        let value = try varint()
        guard value <= UInt64(UInt32.max) else { throw .invalid("a 32-bit number is \(value)") }
        return UInt32(value)
    }

    /// A count of elements that take at least `minimumSize` bytes each.
    mutating func count(minimumSize: Int = 1) throws(SavedIndexError) -> Int {
        let value = try varint()
        guard value <= UInt64(remaining / max(1, minimumSize)) else { throw .truncated }
        return Int(value)
    }

    mutating func zigzag() throws(SavedIndexError) -> Int64 {
        let value = try varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    mutating func bool() throws(SavedIndexError) -> Bool {
        switch try byte() {
        case 0: false
        case 1: true
        case let other: throw .invalid("a flag is \(other)")
        }
    }

    /// A string of valid UTF-8 of at most `maxBytes` bytes, lent to `body` as its bytes: no
    /// `String` is made (a restore puts a million names straight into the name column). Checked as
    /// ``string(maxBytes:)`` checks it.
    mutating func withStringBytes<R>(maxBytes: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) throws(SavedIndexError) -> R {
        let length = try count()
        guard length <= maxBytes else { throw .invalid("a string of \(length) bytes (at most \(maxBytes))") }
        let start = offset
        offset += length
        let result: R? = bytes.withUnsafeBufferPointer { all in
            let slice = UnsafeBufferPointer(rebasing: all[start..<(start + length)])
            return UTF8Check.isValid(slice) ? body(slice) : nil
        }
        guard let result else { throw .invalid("a string is not UTF-8") }
        return result
    }

    /// A string of valid UTF-8 of at most `maxBytes` bytes.
    mutating func string(maxBytes: Int = 4096) throws(SavedIndexError) -> String {
        let length = try count()
        guard length <= maxBytes else { throw .invalid("a string of \(length) bytes (at most \(maxBytes))") }
        let slice = bytes[offset..<(offset + length)]
        offset += length
        guard let value = String(validating: slice, as: UTF8.self) else { throw .invalid("a string is not UTF-8") }
        return value
    }
}
