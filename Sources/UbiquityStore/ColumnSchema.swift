/// A column of a table: a name, a type, and whether it may hold null.
public struct ColumnSchema: Sendable, Hashable {
    public let name: String
    public let type: ColumnType
    /// Whether rows may leave the column null. Columns added to an existing table must be.
    public let nullable: Bool

    public init(_ name: String, _ type: ColumnType, nullable: Bool = true) {
        self.name = name
        self.type = type
        self.nullable = nullable
    }

    /// Whether `value` may be stored in this column.
    public func accepts(_ value: StoreValue) -> Bool {
        guard let type = value.type else { return nullable }
        if case .double(let d) = value, !d.isFinite { return false }
        return type == self.type
    }
}
