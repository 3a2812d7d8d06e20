/// One sort key of a fetch (`NSSortDescriptor`'s shape): a column, ascending or descending. A row
/// without a value sorts first (ascending); ties are broken by id.
public struct StoreSortDescriptor: Sendable, Hashable {
    public var key: String
    public var ascending: Bool

    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// The wire form: `column:asc` or `column:desc`.
    public var wire: String { key + (ascending ? ":asc" : ":desc") }
}
