public import FoundationEssentials

/// An item's identity: an uppercase UUID, also the tail of its file name `Item_<UUID>`.
public struct GroceryItemID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The canonical uppercase form, e.g. `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public let uuidString: String
    /// The UUID's 128 bits: equality, hashing and order use them, not the string (`grocery list`
    /// sorts, hashes and abbreviates 10,000 ids). Two ids are equal exactly when their canonical
    /// strings are, and, the string being 32 hex digits (`0-9` before `A-F`) with hyphens at
    /// fixed places, ordered as the strings are.
    private let bits: UInt128

    public static let fileNamePrefix = "Item_"

    public init(_ uuid: UUID = UUID()) {
        uuidString = uuid.uuidString.uppercased()
        bits = withUnsafeBytes(of: uuid.uuid) { $0.reduce(UInt128(0)) { $0 << 8 | UInt128($1) } }
    }

    /// Accepts a UUID in any case; nil when it is not one.
    public init?(uuidString: String) {
        guard let uuid = UUID(uuidString: uuidString) else { return nil }
        self.init(uuid)
    }

    /// Parses `Item_<UUID>`; nil for any other name (such files are not items). Only the
    /// canonical uppercase spelling is an item (`Item_e621…` is someone else's file), so the name
    /// is checked byte by byte, without parsing a UUID: `grocery list` checks every item's name.
    public init?(fileName: some StringProtocol) {
        // On the name's bytes where they are (a String's are contiguous): walking a dropped-first
        // UTF-8 view took most of the time `grocery list` spends on each item's name.
        let parsed = fileName.utf8.withContiguousStorageIfAvailable(Self.parse) ?? Array(fileName.utf8).withUnsafeBufferPointer(Self.parse)
        guard let parsed else { return nil }
        self = parsed
    }

    /// The id in `Item_<UUID>` (the UUID's canonical uppercase spelling); nil for anything else.
    private static func parse(_ name: UnsafeBufferPointer<UInt8>) -> GroceryItemID? {
        let prefix = fileNamePrefix.utf8.count
        guard name.count == prefix + 36, name.starts(with: fileNamePrefix.utf8) else { return nil }
        var bits: UInt128 = 0
        for offset in 0..<36 {
            let byte = name[prefix + offset]
            switch offset {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return nil }
            default:
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): bits = bits << 4 | UInt128(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "A")...UInt8(ascii: "F"): bits = bits << 4 | UInt128(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
            }
        }
        return GroceryItemID(uuidString: String(decoding: UnsafeBufferPointer(rebasing: name[prefix...]), as: UTF8.self), bits: bits)
    }

    private init(uuidString: String, bits: UInt128) {
        self.uuidString = uuidString
        self.bits = bits
    }

    public var fileName: String { Self.fileNamePrefix + uuidString }
    public var description: String { uuidString }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bits < rhs.bits }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.bits == rhs.bits }
    public func hash(into hasher: inout Hasher) { hasher.combine(bits) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = GroceryItemID(uuidString: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "'\(text)' is not a UUID"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }
}

extension GroceryItemID {
    /// The shortest prefixes (at least `minimumLength` characters) that tell each id apart from
    /// every other id in `ids`, like git's abbreviated hashes.
    public static func shortIDs(for ids: some Collection<GroceryItemID>,
                                minimumLength: Int = GroceryLimits.minimumShortIDLength) -> [GroceryItemID: String] {
        let sorted = ids.sorted()
        var result: [GroceryItemID: String] = [:]
        result.reserveCapacity(sorted.count)
        // In sorted order an id shares its longest common prefix with one of its two neighbours.
        for (index, id) in sorted.enumerated() {
            var needed = minimumLength
            if index > 0 { needed = max(needed, commonPrefixLength(id, sorted[index - 1]) + 1) }
            if index + 1 < sorted.count { needed = max(needed, commonPrefixLength(id, sorted[index + 1]) + 1) }
            // The canonical string is ASCII: characters are bytes.
            result[id] = String(decoding: id.uuidString.utf8.prefix(needed), as: UTF8.self)
        }
        return result
    }

    /// Finds the one id among `ids` that starts with `prefix` (case-insensitive; an `Item_` in
    /// front and a full UUID are accepted too).
    public static func resolve(_ prefix: String, among ids: some Collection<GroceryItemID>) throws -> GroceryItemID {
        // Spaces and tabs around it go (Foundation's `.whitespaces`, without Foundation).
        let blank: (Character) -> Bool = { $0.isWhitespace && !$0.isNewline }
        var needle = String(prefix.drop(while: blank).reversed().drop(while: blank).reversed())
        if needle.hasPrefix(fileNamePrefix) { needle.removeFirst(fileNamePrefix.count) }
        needle = needle.uppercased()
        guard !needle.isEmpty, needle.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw GroceryError.invalidItemID(prefix)
        }
        let matches = ids.filter { $0.uuidString.hasPrefix(needle) }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw GroceryError.unknownItem(prefix: prefix)
        default: throw GroceryError.ambiguousItem(prefix: prefix, candidates: matches.sorted().map(\.uuidString))
        }
    }

    /// How many leading characters the canonical strings of `a` and `b` share: the hex digits
    /// their bits share, and the hyphens among them.
    static func commonPrefixLength(_ a: GroceryItemID, _ b: GroceryItemID) -> Int {
        let digits = (a.bits ^ b.bits).leadingZeroBitCount / 4     // 32 when equal
        let hyphens = digits >= 20 ? 4 : digits >= 8 ? (digits - 4) / 4 : 0     // before digits 8, 12, 16, 20
        return digits + hyphens
    }
}
