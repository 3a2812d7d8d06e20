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

    /// Sort order of two values of one column: null first, then by value (strings by their bytes);
    /// the one order clients sort by too (``StoreValue/order(_:_:)``).
    public static func compare(_ a: StoreValue, _ b: StoreValue) -> Int { StoreValue.order(a, b) }

    /// Whether `a` comes before `b` in a fetch sorted by `keys` (each column ascending or not),
    /// then by id: the one order of every fetch and of the live fetches kept up to date.
    public static func ordered(_ a: StoreRow, _ b: StoreRow, by keys: [(column: String, ascending: Bool)]) -> Bool {
        for (column, ascending) in keys {
            let order = compare(a[column], b[column])
            if order != 0 { return ascending ? order < 0 : order > 0 }
        }
        return a.id < b.id
    }
}
