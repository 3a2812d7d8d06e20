import Testing
import UbiquityStore

@Suite("Schemas: what a store may declare, and which changes to it are additive")
struct SchemaTests {
    @Test("The Grocery schema builds and answers lookups")
    func grocery() {
        let schema = Grocery.schema()
        #expect(schema.table("items")?.column("quantity")?.type == .integer)
        #expect(schema.table("tags")?.isUniqueByMeaning == true)
        #expect(schema.relationship("tags")?.inverse == "items")
        #expect(schema.table("nope") == nil)
        #expect(schema.deletes == .lose)
    }

    static let invalid: [(String, @Sendable () throws -> Schema, String)] = [
        ("version 0", { try Schema(version: 0, tables: []) }, "version must be 1"),
        ("bad table name", { try Schema(version: 1, tables: [TableSchema("9lives", columns: [])]) }, "'9lives' cannot name a table"),
        ("table twice", { try Schema(version: 1, tables: [TableSchema("a", columns: []), TableSchema("a", columns: [])]) }, "table 'a' is declared twice"),
        ("column id", { try Schema(version: 1, tables: [TableSchema("a", columns: [ColumnSchema("id", .string)])]) }, "'a.id' is every row's id"),
        ("column twice", { try Schema(version: 1, tables: [TableSchema("a", columns: [ColumnSchema("x", .string), ColumnSchema("x", .bool)])]) },
         "column 'a.x' is declared twice"),
        ("bad column name", { try Schema(version: 1, tables: [TableSchema("a", columns: [ColumnSchema("my col", .string)])]) }, "'my col' cannot name a column of 'a'"),
        ("long name", { try Schema(version: 1, tables: [TableSchema(String(repeating: "t", count: 65), columns: [])]) }, "cannot name a table"),
        ("key not a column", { try Schema(version: 1, tables: [TableSchema("a", columns: [], uniqueBy: ["name"])]) }, "names 'name', which is not one of its columns"),
        ("nullable key", { try Schema(version: 1, tables: [TableSchema("a", columns: [ColumnSchema("name", .string)], uniqueBy: ["name"])]) },
         "'a.name' must be a non-nullable string or integer"),
        ("double key", { try Schema(version: 1, tables: [TableSchema("a", columns: [ColumnSchema("x", .double, nullable: false)], uniqueBy: ["x"])]) },
         "'a.x' must be a non-nullable string or integer"),
        ("missing end", { try Schema(version: 1, tables: [TableSchema("a", columns: [])], relationships: [RelationshipSchema("r", from: "a", to: "b", inverse: "s")]) },
         "ends at table 'b', which is not declared"),
        ("end clashes", { try Schema(version: 1, tables: [TableSchema("a", columns: [ColumnSchema("r", .string)])],
                                     relationships: [RelationshipSchema("r", from: "a", to: "a", inverse: "s")]) }, "'a.r' has the name of a column"),
        ("same end twice", { try Schema(version: 1, tables: [TableSchema("a", columns: [])], relationships: [RelationshipSchema("r", from: "a", to: "a", inverse: "r")]) },
         "'a.r' names two relationship ends"),
        ("relationship twice", { try Schema(version: 1, tables: [TableSchema("a", columns: []), TableSchema("b", columns: [])],
                                            relationships: [RelationshipSchema("r", from: "a", to: "b", inverse: "s"), RelationshipSchema("r", from: "b", to: "a", inverse: "t")]) },
         "relationship 'r' is declared twice"),
    ]

    @Test("Invalid schemas are refused, naming what is wrong", arguments: invalid.indices)
    func refused(_ index: Int) {
        let (what, make, phrase) = SchemaTests.invalid[index]
        do {
            _ = try make()
            Issue.record("accepted: \(what)")
        } catch let error as StoreError {
            #expect(error.code == .invalidSchema)
            #expect(error.message.contains(phrase), "\(what): \(error.message)")
        } catch {
            Issue.record("\(what): \(error)")
        }
    }

    /// Grocery v1 with a change: the tables and relationships given replace v1's.
    static func v2(tables: [TableSchema]? = nil, relationships: [RelationshipSchema]? = nil, version: UInt32 = 2,
                   deletes: DeletePolicy = .lose) throws -> Schema {
        let v1 = Grocery.schema()
        return try Schema(version: version, tables: tables ?? v1.tables, relationships: relationships ?? v1.relationships, deletes: deletes)
    }

    static func items(_ extra: [ColumnSchema] = [], drop: String? = nil, replace: ColumnSchema? = nil) -> [TableSchema] {
        let v1 = Grocery.schema()
        var columns = v1.table("items")!.columns.filter { $0.name != drop }
        if let replace { columns = columns.map { $0.name == replace.name ? replace : $0 } }
        return [TableSchema("items", columns: columns + extra), v1.table("tags")!]
    }

    @Test("Additive changes are accepted: a table, a nullable column, a relationship; the same schema again")
    func additive() throws {
        let v1 = Grocery.schema()
        try v1.checkAdditive(to: v1)
        try v1.checkAdditive(to: Self.v2(tables: Self.items([ColumnSchema("aisle", .integer)])))
        let stores = TableSchema("stores", columns: [ColumnSchema("name", .string, nullable: false)])
        try v1.checkAdditive(to: Self.v2(tables: v1.tables + [stores],
                                         relationships: v1.relationships + [RelationshipSchema("stores", from: "items", to: "stores", inverse: "items")]))
        var state = StoreState(schema: v1)
        try state.upgrade(to: Self.v2(tables: v1.tables + [stores]))
        #expect(state.schema.version == 2)
    }

    static let notAdditive: [(String, @Sendable () throws -> Schema, String)] = [
        ("same version", { try v2(tables: items([ColumnSchema("aisle", .integer)]), version: 1) }, "its version is still 1"),
        ("older version", { try Schema(version: 1, tables: []) }, "version 1 is older than this store's version 2"),
        ("table gone", { try v2(tables: [Grocery.schema().table("items")!], relationships: []) }, "table 'tags' is gone"),
        ("column gone", { try v2(tables: items(drop: "note")) }, "column 'items.note' is gone"),
        ("column retyped", { try v2(tables: items(replace: ColumnSchema("quantity", .double))) }, "'items.quantity' changed type from integer to double"),
        ("now non-nullable", { try v2(tables: items(replace: ColumnSchema("note", .string, nullable: false))) }, "'items.note' became non-nullable"),
        ("new required column", { try v2(tables: items([ColumnSchema("aisle", .integer, nullable: false)])) }, "new column 'items.aisle' must be nullable"),
        ("key changed", { try v2(tables: [Grocery.schema().table("items")!, TableSchema("tags", columns: Grocery.schema().table("tags")!.columns)]) },
         "the unique key of 'tags' changed"),
        ("relationship gone", { try v2(relationships: []) }, "relationship 'tags' is gone"),
        ("relationship changed", { try v2(relationships: [RelationshipSchema("tags", from: "items", to: "tags", inverse: "things")]) }, "relationship 'tags' changed"),
        ("policy changed", { try v2(deletes: .win) }, "delete policy changed from 'lose' to 'win'"),
    ]

    @Test("Changes that are not additive are refused, naming the table, column or relationship", arguments: notAdditive.indices)
    func refusedChange(_ index: Int) throws {
        let (what, make, phrase) = SchemaTests.notAdditive[index]
        let base = what == "older version" ? try Self.v2() : Grocery.schema()
        do {
            try base.checkAdditive(to: make())
            Issue.record("accepted: \(what)")
        } catch let error as StoreError {
            #expect(error.code == .schemaNotAdditive)
            #expect(error.message.contains(phrase), "\(what): \(error.message)")
        }
    }
}
