/// A row of a store: its table and its id. Printed `items/3f0c…`.
public struct RowRef: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let table: String
    public let id: RowID

    public init(table: String, id: RowID) {
        self.table = table
        self.id = id
    }

    public static func < (a: RowRef, b: RowRef) -> Bool {
        a.table != b.table ? a.table.utf8.lexicographicallyPrecedes(b.table.utf8) : a.id < b.id
    }

    public var description: String { "\(table)/\(id)" }
}
