/// One name's 16 bytes in a ``NameColumn``: a name of up to 15 UTF-8 bytes held whole, or where a
/// longer name's bytes are in the column's ``NameBytes``.
///
/// A short name is kept as the standard library keeps a small `String`: its two words, with the
/// name's bytes, its length and the "small" flag inside them, and no reference to anything. So
/// reading a short name back is a 16-byte copy, as it was when the column held `String`s. A slot
/// whose flag (bit 61 of the second word, the small-string discriminator of the 64-bit `String`
/// layout) is clear is a long name's place: chunk and offset in the first word, length in the
/// second. A long slot is never reinterpreted as a `String`; a short one is built only from a
/// `String` whose own words have the flag set, so a layout that differed would store every name
/// long (correct, only larger), never misread one.
///
/// A long name may be stored compressed (``NameCodec``, by the column's table): bit 32 of the
/// second word says so, its count is then the encoded bytes' and bits 40–47 hold the name's own
/// length (a compressed name is at most 255 bytes).
///
/// ```
/// "file.txt"         low: 'f' 'i' 'l' 'e' '.' 't' 'x' 't'   high: 0xE8 ... (small, ASCII, 8 bytes)
/// "file_00000001.txt" low: chunk 3 << 32 | offset 4,112    high: 17 (long: 17 bytes at chunk 3, 4,112)
/// 130 bytes as 88    low: chunk 5 << 32 | offset 900      high: 130 << 40 | 1 << 32 | 88 (compressed)
/// ```
struct NameSlot: Sendable, Equatable {
    /// The small-string discriminator bit of a 64-bit `String`'s second word.
    private static let smallFlag: UInt64 = 1 << 61
    /// Longest name a short slot holds.
    static let shortLimit = 15

    let low: UInt64
    let high: UInt64

    /// The slot holding `name` whole, or nil when it does not fit (over 15 UTF-8 bytes) or the
    /// standard library did not keep it small.
    init?(short name: String) {
        guard name.utf8.count <= Self.shortLimit else { return nil }
        let given = unsafeBitCast(name, to: (UInt64, UInt64).self)
        if given.1 & Self.smallFlag != 0 {
            (low, high) = given
            return
        }
        // A name of up to 15 bytes is small when built from its bytes, whatever storage it came in.
        let small = name.utf8.withContiguousStorageIfAvailable { String(decoding: $0, as: UTF8.self) }
            ?? String(decoding: Array(name.utf8), as: UTF8.self)
        let words = unsafeBitCast(small, to: (UInt64, UInt64).self)
        guard words.1 & Self.smallFlag != 0 else { return nil }
        (low, high) = words
    }

    /// The compressed flag of a long slot's second word.
    private static let compressedFlag: UInt64 = 1 << 32

    /// A long name's place: `count` bytes at `offset` of chunk `chunk`; with `decodedCount`, the
    /// bytes are the name compressed (``NameCodec``) and it is `decodedCount` bytes long (at most
    /// ``NameCodec/maxNameBytes``).
    init(chunk: Int, offset: Int, count: Int, decodedCount: Int? = nil) {
        precondition(chunk >= 0 && chunk <= Int(UInt32.max) && offset >= 0 && offset <= Int(UInt32.max)
                     && count >= 0 && count <= Int(UInt32.max), "a name of \(count) bytes at chunk \(chunk), offset \(offset)")
        low = UInt64(chunk) << 32 | UInt64(offset)
        if let decodedCount {
            precondition((0...NameCodec.maxNameBytes).contains(decodedCount), "a compressed name of \(decodedCount) bytes")
            high = UInt64(decodedCount) << 40 | Self.compressedFlag | UInt64(count)
        } else {
            high = UInt64(count)
        }
    }

    /// A long name's slot once `chunks` chunks come before its own (``NameBytes/append(chunksOf:)``).
    func movedOn(byChunks chunks: Int) -> NameSlot {
        precondition(!isShort && chunks >= 0 && (low >> 32) + UInt64(chunks) <= UInt64(UInt32.max), "a slot moved on by \(chunks) chunks")
        return NameSlot(low: low + (UInt64(chunks) << 32), high: high)
    }

    private init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Held whole in the slot.
    @inline(__always) var isShort: Bool { high & Self.smallFlag != 0 }

    /// A short slot's name (the slot must be short).
    @inline(__always) var shortName: String {
        assert(isShort, "a long name's slot read as a short name")
        return unsafeBitCast((low, high), to: String.self)
    }

    /// Stores a short slot's 16 bytes at `out`, which must have room for all 16, and returns its
    /// name's length: the name is the first bytes, and whatever is written next goes over the
    /// rest. Two stores, where going through a `String` copied the slot and called `memmove`.
    /// The length is the low four bits of the second word's top byte, as in a small `String`
    /// (checked against the `String`'s own count in debug builds).
    @inline(__always) func storeShort(at out: UnsafeMutableRawPointer) -> Int {
        assert(isShort, "a long name's slot stored as a short name")
        out.storeBytes(of: low, as: UInt64.self)
        out.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
        let count = Int(truncatingIfNeeded: (high >> 56) & 0x0F)
        assert(count == shortName.utf8.count, "a small string's length where it was not")
        return count
    }

    /// A short slot's name's UTF-8 bytes (the slot must be short).
    @inline(__always) func withShortUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        var name = shortName
        return try name.withUTF8(body)
    }

    /// A long slot whose bytes are its name compressed.
    @inline(__always) var isCompressed: Bool { high & (Self.smallFlag | Self.compressedFlag) == Self.compressedFlag }

    /// A compressed slot's name's length (the slot must be compressed).
    @inline(__always) var decodedCount: Int { Int(truncatingIfNeeded: (high >> 40) & 0xFF) }

    /// A long slot's chunk, offset in it and length (the encoded bytes' when it is compressed).
    @inline(__always) var chunk: Int { Int(truncatingIfNeeded: low >> 32) }
    @inline(__always) var offset: Int { Int(truncatingIfNeeded: low & 0xFFFF_FFFF) }
    @inline(__always) var count: Int { Int(truncatingIfNeeded: high & 0xFFFF_FFFF) }
}
