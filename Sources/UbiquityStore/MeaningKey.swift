public import UbiquityErrors

/// Row ids for tables that are unique by meaning: the id is a hash of the table's name and the
/// folded values of its key columns, so two devices that both create the tag `Mall` create one row.
///
/// The id is the first 16 bytes of SHA-256 over
/// `"ubiquity-store-row-v1" 0x00 table 0x00` then, for each key column in the schema's order,
/// `"s" folded-text 0x00` for a string or `"i" decimal 0x00` for an integer (docs/stores.md).
/// Text is folded: lowercased, runs of white space made one space, ends trimmed, then put in
/// Unicode normal form C — `"  Green\tGrocer "` and `"green grocer"` are one key.
public enum MeaningKey {
    static let domain = Array("ubiquity-store-row-v1".utf8)

    /// The key text as it is hashed.
    public static func fold(_ text: String) -> String {
        var words: [Substring] = []
        for word in text.lowercased().split(whereSeparator: { $0.isWhitespace }) { words.append(word) }
        // `_nfcCodeUnits` is the standard library's own normaliser (what String hashing uses);
        // Foundation's would tie this pure module to ICU.
        return String(decoding: words.joined(separator: " ")._nfcCodeUnits, as: UTF8.self)
    }

    /// The id of the row of `table` whose key columns hold `values` (in the order of `uniqueBy`).
    ///
    /// - Throws: ``StoreErrorCode/invalidChange`` when a key value is missing or not a string or integer.
    public static func rowID(table: TableSchema, values: [String: StoreValue]) throws(StoreError) -> RowID {
        var message = domain
        message.append(0)
        message.append(contentsOf: table.name.utf8)
        message.append(0)
        for key in table.uniqueBy {
            switch values[key] ?? .null {
            case .string(let text):
                message.append(UInt8(ascii: "s"))
                message.append(contentsOf: fold(text).utf8)
            case .integer(let number):
                message.append(UInt8(ascii: "i"))
                message.append(contentsOf: String(number).utf8)
            case let other:
                throw StoreError(.invalidChange, "'\(table.name)' is unique by meaning: its key column '\(key)' needs a value, not \(other.kindNoun)",
                                 details: ["table": .string(table.name), "column": .string(key)])
            }
            message.append(0)
        }
        return RowID(bytes: SHA256.digest(message).prefix(16))!
    }
}
