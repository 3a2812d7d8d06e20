public import UbiquityErrors

/// A store's declared schema: its version, tables, relationships and delete policy.
///
/// Checked when made: names are 1 to 64 of `A-Z a-z 0-9 _` not starting with a digit, unique
/// within their table (`id` is every row's id and cannot be a column), relationships join tables
/// that exist and their end names do not clash with columns, a unique key is made of
/// non-nullable string or integer columns. A schema only grows: ``checkAdditive(to:)``.
///
/// ```swift
/// let grocery = try Schema(version: 1, tables: [
///     TableSchema("items", columns: [ColumnSchema("name", .string, nullable: false)]),
///     TableSchema("tags", columns: [ColumnSchema("name", .string, nullable: false)], uniqueBy: ["name"]),
/// ], relationships: [RelationshipSchema("tags", from: "items", to: "tags", inverse: "items")])
/// ```
public struct Schema: Sendable, Hashable {
    public static let maxTables = 256
    public static let maxColumns = 256
    public static let maxRelationships = 256
    public static let maxNameBytes = 64

    /// Goes up with every change; segments carry the version they were written with.
    public let version: UInt32
    public let tables: [TableSchema]
    public let relationships: [RelationshipSchema]
    public let deletes: DeletePolicy

    private let tableIndex: [String: Int]
    private let relationshipIndex: [String: Int]

    /// - Throws: ``StoreErrorCode/invalidSchema`` naming the first thing wrong.
    public init(version: UInt32, tables: [TableSchema], relationships: [RelationshipSchema] = [],
                deletes: DeletePolicy = .lose) throws(StoreError) {
        self.version = version
        self.tables = tables
        self.relationships = relationships
        self.deletes = deletes
        var tableIndex: [String: Int] = [:], relationshipIndex: [String: Int] = [:]
        for (position, table) in tables.enumerated() { tableIndex[table.name] = tableIndex[table.name] ?? position }
        for (position, r) in relationships.enumerated() { relationshipIndex[r.name] = relationshipIndex[r.name] ?? position }
        self.tableIndex = tableIndex
        self.relationshipIndex = relationshipIndex
        try check()
    }

    public func table(_ name: String) -> TableSchema? { tableIndex[name].map { tables[$0] } }
    public func relationship(_ name: String) -> RelationshipSchema? { relationshipIndex[name].map { relationships[$0] } }

    /// Whether `name` may name a table, column or relationship.
    public static func isName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maxNameBytes, !(0x30...0x39).contains(first) else { return false }
        return bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }
    }

    private func check() throws(StoreError) {
        func fail(_ message: String, _ details: [String: String] = [:]) -> StoreError {
            StoreError(.invalidSchema, message, details: details.mapValues { .string($0) })
        }
        guard version >= 1 else { throw fail("the schema version must be 1 or more") }
        guard tables.count <= Schema.maxTables else { throw fail("\(tables.count) tables, more than the \(Schema.maxTables) a store may have") }
        guard relationships.count <= Schema.maxRelationships else {
            throw fail("\(relationships.count) relationships, more than the \(Schema.maxRelationships) a store may have")
        }
        var seenTables: Set<String> = []
        for table in tables {
            guard Schema.isName(table.name) else { throw fail("'\(table.name)' cannot name a table: use 1 to 64 of A-Z a-z 0-9 _, not starting with a digit", ["table": table.name]) }
            guard seenTables.insert(table.name).inserted else { throw fail("table '\(table.name)' is declared twice", ["table": table.name]) }
            guard table.columns.count <= Schema.maxColumns else {
                throw fail("table '\(table.name)' has \(table.columns.count) columns, more than \(Schema.maxColumns)", ["table": table.name])
            }
            var seenColumns: Set<String> = []
            for column in table.columns {
                let details = ["table": table.name, "column": column.name]
                guard Schema.isName(column.name) else { throw fail("'\(column.name)' cannot name a column of '\(table.name)': use 1 to 64 of A-Z a-z 0-9 _, not starting with a digit", details) }
                guard column.name != "id" else { throw fail("'\(table.name).id' is every row's id; name the column otherwise", details) }
                guard seenColumns.insert(column.name).inserted else { throw fail("column '\(table.name).\(column.name)' is declared twice", details) }
            }
            var seenKey: Set<String> = []
            for key in table.uniqueBy {
                let details = ["table": table.name, "column": key]
                guard let column = table.column(key) else { throw fail("the unique key of '\(table.name)' names '\(key)', which is not one of its columns", details) }
                guard column.type == .string || column.type == .integer, !column.nullable else {
                    throw fail("the unique key column '\(table.name).\(key)' must be a non-nullable string or integer", details)
                }
                guard seenKey.insert(key).inserted else { throw fail("the unique key of '\(table.name)' names '\(key)' twice", details) }
            }
        }
        var ends: Set<String> = []
        for r in relationships {
            let details = ["relationship": r.name]
            for name in [r.name, r.inverse] where !Schema.isName(name) {
                throw fail("'\(name)' cannot name a relationship: use 1 to 64 of A-Z a-z 0-9 _, not starting with a digit", details)
            }
            guard let from = table(r.from) else { throw fail("relationship '\(r.name)' starts at table '\(r.from)', which is not declared", details) }
            guard let to = table(r.to) else { throw fail("relationship '\(r.name)' ends at table '\(r.to)', which is not declared", details) }
            guard relationship(r.name) == r, !relationships.contains(where: { $0 != r && $0.name == r.name }) else {
                throw fail("relationship '\(r.name)' is declared twice", details)
            }
            for (table, end) in [(from, r.name), (to, r.inverse)] {
                guard table.column(end) == nil, end != "id" else {
                    throw fail("relationship end '\(table.name).\(end)' has the name of a column", details.merging(["table": table.name]) { a, _ in a })
                }
                guard ends.insert("\(table.name).\(end)").inserted else {
                    throw fail("'\(table.name).\(end)' names two relationship ends", details.merging(["table": table.name]) { a, _ in a })
                }
            }
        }
    }
}
