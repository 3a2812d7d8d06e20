/// One column's new value in an insert or update, with the reading of the value it replaced.
public struct ColumnWrite: Sendable, Hashable {
    public let name: String
    public let value: StoreValue
    /// The clock reading of the value the writer saw in this column at the row's generation; nil
    /// when it saw none (an insert, or a column never written). A write whose `base` is before
    /// another write's reading was made without seeing it: if it wins, the other is a true
    /// conflict's loser, reported in the import.
    public let base: HLC?

    public init(_ name: String, _ value: StoreValue, base: HLC? = nil) {
        self.name = name
        self.value = value
        self.base = base
    }
}
