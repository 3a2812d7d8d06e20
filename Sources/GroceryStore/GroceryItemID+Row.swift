import FoundationEssentials

extension GroceryItemID {
    /// The item of a store row (store mode): the row's 128-bit id in the UUID's form, so that
    /// short ids, prefixes and every command work as in the other formats. Nil when `rowID` is
    /// not 32 hex digits.
    public init?(rowID: String) {
        let digits = Array(rowID.utf8)
        guard digits.count == 32, digits.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }) else {
            return nil
        }
        let text = String(decoding: digits, as: UTF8.self)
        var grouped = ""
        for (index, character) in text.enumerated() {
            if [8, 12, 16, 20].contains(index) { grouped.append("-") }
            grouped.append(character)
        }
        self.init(uuidString: grouped)
    }

    /// The store row's id: 32 lowercase hex digits.
    public var rowID: String { uuidString.lowercased().filter { $0 != "-" } }
}
