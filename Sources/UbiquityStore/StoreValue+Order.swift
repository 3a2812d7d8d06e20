extension StoreValue {
    /// The sort order of two values of one column, as a fetch sorts and compares them: no value
    /// first, then by value (strings and data by their bytes, `false` before `true`); -1, 0 or 1.
    /// Values of different types (never in one column) are ordered by their descriptions.
    public static func order(_ a: StoreValue, _ b: StoreValue) -> Int {
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
