import UbiquityErrors

/// Reads a segment's fields from bytes that may be anything: every read checks what is left and
/// throws ``StoreErrorCode/segmentMalformed`` with the offset instead of trapping.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int
    /// Reads stop here (the checksum's first byte).
    let end: Int
    /// What is being read, for messages ("the name table"); setting it ends ``item``.
    var context: String {
        get { item.map { "change \($0.index) of \($0.count)" } ?? label }
        set { label = newValue; item = nil }
    }
    private var label = "the segment"
    /// The change being read, when it is one ("change 3 of 10"): kept as numbers, so that no
    /// text is made for each change of a segment that reads well.
    var item: (index: Int, count: Int)?

    init(_ bytes: [UInt8], from offset: Int, to end: Int) {
        self.bytes = bytes
        self.offset = offset
        self.end = end
    }

    var remaining: Int { end - offset }

    func malformed(_ message: String) -> StoreError {
        StoreError(.segmentMalformed, "\(context): \(message) (offset \(offset))", details: ["offset": .integer(Int64(offset))])
    }

    mutating func byte() throws(StoreError) -> UInt8 {
        guard offset < end else { throw malformed("the body ends in the middle of a field") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func littleEndian<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(StoreError) -> T {
        let size = T.bitWidth / 8
        guard remaining >= size else { throw malformed("the body ends in the middle of a field") }
        var value: T = 0
        for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
        offset += size
        return value
    }

    /// Unsigned LEB128 of at most ten bytes whose value fits in 64 bits.
    mutating func varint() throws(StoreError) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<10 {
            let byte = try byte()
            if index == 9, byte > 1 { throw malformed("a varint does not fit in 64 bits") }
            value |= UInt64(byte & 0x7F) << (7 * UInt64(index))
            if byte < 0x80 { return value }
        }
        throw malformed("a varint is longer than 10 bytes")
    }

    mutating func zigzag() throws(StoreError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A varint that must be at most `limit` (a count or an index), as an `Int`.
    mutating func count(atMost limit: Int, _ what: String) throws(StoreError) -> Int {
        let raw = try varint()
        guard raw <= UInt64(limit) else { throw malformed("\(what) is \(raw), more than \(limit)") }
        return Int(raw)
    }

    /// `count` bytes; the count was already checked against a limit.
    mutating func take(_ count: Int) throws(StoreError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw malformed("a field of \(count) bytes runs past the body") }
        defer { offset += count }
        return bytes[offset ..< offset + count]
    }

    /// A length-prefixed UTF-8 string of at most `maxBytes`.
    mutating func string(maxBytes: Int, _ what: String) throws(StoreError) -> String {
        let length = try varint()
        guard length <= UInt64(maxBytes) else {
            throw StoreError(.segmentOversized, "\(context): \(what) is \(length) bytes, more than the \(maxBytes) allowed (offset \(offset))",
                             details: ["offset": .integer(Int64(offset)), "limit": .integer(Int64(maxBytes))])
        }
        let slice = try take(Int(length))
        guard let text = String(validating: slice, as: UTF8.self) else { throw malformed("\(what) is not valid UTF-8") }
        return text
    }
}
