public import FoundationEssentials

/// An item's identity: an uppercase UUID, also the tail of its file name `Item_<UUID>`.
public struct GroceryItemID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The canonical uppercase form, e.g. `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public let uuidString: String

    public static let fileNamePrefix = "Item_"

    public init(_ uuid: UUID = UUID()) { uuidString = uuid.uuidString.uppercased() }

    /// Accepts a UUID in any case; nil when it is not one.
    public init?(uuidString: String) {
        guard let uuid = UUID(uuidString: uuidString) else { return nil }
        self.init(uuid)
    }

    /// Parses `Item_<UUID>`; nil for any other name (such files are not items). Only the
    /// canonical uppercase spelling is an item (`Item_e621…` is someone else's file), so the name
    /// is checked byte by byte, without parsing a UUID: `grocery list` checks every item's name.
    public init?(fileName: some StringProtocol) {
        guard fileName.hasPrefix(Self.fileNamePrefix) else { return nil }
        let tail = fileName.utf8.dropFirst(Self.fileNamePrefix.utf8.count)
        guard tail.count == 36 else { return nil }
        for (offset, byte) in tail.enumerated() {
            switch offset {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return nil }
            default:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                else { return nil }
            }
        }
        uuidString = String(fileName.dropFirst(Self.fileNamePrefix.count))
    }

    public var fileName: String { Self.fileNamePrefix + uuidString }
    public var description: String { uuidString }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.uuidString < rhs.uuidString }

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
            if index > 0 { needed = max(needed, commonPrefixLength(id.uuidString, sorted[index - 1].uuidString) + 1) }
            if index + 1 < sorted.count { needed = max(needed, commonPrefixLength(id.uuidString, sorted[index + 1].uuidString) + 1) }
            result[id] = String(id.uuidString.prefix(needed))
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

    private static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        var count = 0
        for (x, y) in zip(a.utf8, b.utf8) {
            guard x == y else { break }
            count += 1
        }
        return count
    }
}
