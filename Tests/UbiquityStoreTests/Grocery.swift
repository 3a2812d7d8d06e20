import UbiquityJSON
import UbiquityStore

/// The Grocery store of the docs: items and tags (unique by name), related many-to-many.
enum Grocery {
    static func schema(version: UInt32 = 1, deletes: DeletePolicy = .lose) -> Schema {
        try! Schema(version: version, tables: [
            TableSchema("items", columns: [
                ColumnSchema("name", .string, nullable: false),
                ColumnSchema("quantity", .integer),
                ColumnSchema("note", .string),
                ColumnSchema("created", .date),
                ColumnSchema("done", .bool),
                ColumnSchema("price", .double),
                ColumnSchema("photo", .data),
                ColumnSchema("extra", .json),
            ]),
            TableSchema("tags", columns: [
                ColumnSchema("name", .string, nullable: false),
                ColumnSchema("color", .string),
            ], uniqueBy: ["name"]),
        ], relationships: [RelationshipSchema("tags", from: "items", to: "tags", inverse: "items")], deletes: deletes)
    }

    static let laptop = DeviceID("laptop")!
    static let phone = DeviceID("phone")!
    static let tablet = DeviceID("tablet")!

    /// 2026-01-01T00:00:00Z.
    static let t0: Int64 = 1_767_225_600_000

    static func item(_ id: RowID) -> RowRef { RowRef(table: "items", id: id) }
    static func tag(_ name: String) -> RowRef {
        RowRef(table: "tags", id: try! MeaningKey.rowID(table: schema().table("tags")!, values: ["name": .string(name)]))
    }

    /// A fixed id per small number, so failures print readable ids.
    static func id(_ n: UInt64) -> RowID { RowID(high: 0x1000_0000_0000_0000 | n, low: n) }
}

extension StoreReplica {
    /// Commits and returns the segment, failing the test's expectations loudly if nothing was written.
    mutating func write(_ operations: [StoreOperation], at wall: Int64) throws -> Segment {
        guard let made = try commit(operations, wall: wall) else { throw NothingWritten() }
        return made.segment
    }
}

struct NothingWritten: Error {}
