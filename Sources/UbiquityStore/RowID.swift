/// A row's identity: 128 bits, written as 32 lowercase hex digits. Random for ordinary rows (the
/// caller passes the generator in), or derived from the row's meaning for tables that are unique
/// by meaning (``MeaningKey``), so that two devices creating the tag `mall` create one row.
public struct RowID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first eight bytes, big-endian.
    public let high: UInt64
    /// The last eight bytes, big-endian.
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The id of 16 bytes; nil for any other count.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Parses 32 hex digits (either case); nil for anything else.
    public init?(_ text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for pair in stride(from: 0, to: 32, by: 2) {
            guard let hi = RowID.nibble(digits[pair]), let lo = RowID.nibble(digits[pair + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        self.init(bytes: bytes)
    }

    /// A random id (version-4 UUID bits are not set: the id is 128 random bits).
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> RowID {
        RowID(high: generator.next(), low: generator.next())
    }

    /// The 16 bytes, big-endian.
    public var bytes: [UInt8] {
        (0..<16).map { index in
            let word = index < 8 ? high : low
            return UInt8(truncatingIfNeeded: word >> (8 * (7 - UInt64(index % 8))))
        }
    }

    public static func < (a: RowID, b: RowID) -> Bool { (a.high, a.low) < (b.high, b.low) }

    /// 32 lowercase hex digits.
    public var description: String {
        // Written straight into the string's storage: the cache spells every row's id it writes.
        String(unsafeUninitializedCapacity: 32) { text in
            for index in 0..<32 {
                let word = index < 16 ? high : low
                let digit = UInt8(truncatingIfNeeded: word >> (60 - 4 * UInt64(index % 16))) & 0xF
                text[index] = digit < 10 ? 0x30 + digit : 0x57 + digit      // 0-9, a-f
            }
            return 32
        }
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x41...0x46: digit - 0x41 + 10
        case 0x61...0x66: digit - 0x61 + 10
        default: nil
        }
    }
}
