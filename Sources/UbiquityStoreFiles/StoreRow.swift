public import UbiquityStore

/// A row as a fetch returns it: its id and its non-null columns.
public struct StoreRow: Sendable, Hashable {
    public let id: RowID
    public let values: [String: StoreValue]

    public init(id: RowID, values: [String: StoreValue]) {
        self.id = id
        self.values = values
    }

    /// A column's value (`id` is the row's id as a string); null when the row has none.
    public subscript(column: String) -> StoreValue {
        column == "id" ? .string(id.description) : values[column] ?? .null
    }

    /// Sort order of two values of one column: null first, then by value (strings by their bytes).
    public static func compare(_ a: StoreValue, _ b: StoreValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.string(let x), .string(let y)): return x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        case (.integer(let x), .integer(let y)), (.date(let x), .date(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (!x ? -1 : 1)
        case (.data(let x), .data(let y)): return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        default: return a.description == b.description ? 0 : (a.description.utf8.lexicographicallyPrecedes(b.description.utf8) ? -1 : 1)
        }
    }
}
