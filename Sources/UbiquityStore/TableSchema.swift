/// A table: named, typed columns (each row also has its ``RowID``, the implicit column `id`) and,
/// for tables whose rows are unique by meaning, the columns that make up that meaning.
public struct TableSchema: Sendable, Hashable {
    public let name: String
    public let columns: [ColumnSchema]
    /// The key columns of a table unique by meaning (a tag's `name`): a row's id is derived from
    /// their folded values (``MeaningKey``), so the same key made on two devices is one row.
    /// Empty for tables of ordinary rows, whose ids are random.
    public let uniqueBy: [String]

    private let columnIndex: [String: Int]

    public init(_ name: String, columns: [ColumnSchema], uniqueBy: [String] = []) {
        self.name = name
        self.columns = columns
        self.uniqueBy = uniqueBy
        var index: [String: Int] = [:]
        for (position, column) in columns.enumerated() where index[column.name] == nil { index[column.name] = position }
        columnIndex = index
    }

    /// The column named `name`, if the table has one.
    public func column(_ name: String) -> ColumnSchema? { columnIndex[name].map { columns[$0] } }

    /// Whether rows are unique by meaning.
    public var isUniqueByMeaning: Bool { !uniqueBy.isEmpty }
}
