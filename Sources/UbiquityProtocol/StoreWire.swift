public import UbiquityJSON
public import UbiquityStore

/// How a relational store's schema, values and rows are written on the wire (docs/protocol.md,
/// "Relational stores"). Pure: the daemon and clients read and write the same forms.
///
/// A value is written by its column's type, so no value needs a tag of its own:
///
/// | column type | JSON |
/// |---|---|
/// | `string` | a string |
/// | `integer` | a whole number |
/// | `double` | a number |
/// | `bool` | `true` or `false` |
/// | `date` | a whole number: milliseconds since 1970-01-01T00:00:00Z |
/// | `data` | a string: the bytes in base64 (RFC 4648, with padding) |
/// | `json` | any JSON value |
///
/// `null` is no value (a nullable column). A row is an object: `id` (32 hex digits) and each
/// column that has a value.
public enum StoreWire {
    // MARK: Schema

    /// `{"version":1,"deletes":"lose","tables":[{"name":…,"columns":[{"name":…,"type":…,"nullable":…}],"uniqueBy":[…]}],"relationships":[{"name":…,"from":…,"to":…,"inverse":…}]}`.
    public static func json(_ schema: Schema) -> JSONValue {
        .object([
            "version": .integer(Int64(schema.version)),
            "deletes": .string(schema.deletes.rawValue),
            "tables": .array(schema.tables.map { table in
                .object([
                    "name": .string(table.name),
                    "columns": .array(table.columns.map { column in
                        .object(["name": .string(column.name), "type": .string(column.type.rawValue), "nullable": .bool(column.nullable)])
                    }),
                    "uniqueBy": .array(table.uniqueBy.map { .string($0) }),
                ])
            }),
            "relationships": .array(schema.relationships.map { r in
                .object(["name": .string(r.name), "from": .string(r.from), "to": .string(r.to), "inverse": .string(r.inverse)])
            }),
        ])
    }

    /// Reads a schema; `field` names where it sits (`schema`). `nullable` defaults to true,
    /// `uniqueBy` and `relationships` to none, `deletes` to `lose`.
    ///
    /// - Throws: `request.malformed` for a shape that is not a schema, naming the field
    ///   (`schema.tables[1].columns[0].type`); the schema's own rules are checked by ``Schema``
    ///   (`store.invalidSchema`).
    public static func schema(_ json: JSONValue, field: String = "schema") throws(ProtocolError) -> Schema {
        let reader = try FieldReader(json, context: field)
        let version = try reader.int("version")
        guard version >= 1, version <= Int(UInt32.max) else {
            throw .malformed("\(field).version must be 1 to \(UInt32.max), found \(version)", field: field)
        }
        let deletesText = try reader.optionalString("deletes") ?? DeletePolicy.lose.rawValue
        guard let deletes = DeletePolicy(rawValue: deletesText) else {
            throw .malformed("\(field).deletes must be \"lose\" or \"win\", found '\(deletesText)'", field: field)
        }
        let tables = try reader.list("tables") { (value, at) throws(ProtocolError) -> TableSchema in
            let table = try FieldReader(value, context: "\(field).\(at)")
            let columns = try table.list("columns") { (value, columnAt) throws(ProtocolError) -> ColumnSchema in
                let column = try FieldReader(value, context: "\(field).\(at).\(columnAt)")
                let typeText = try column.string("type")
                guard let type = ColumnType(rawValue: typeText) else {
                    let known = ColumnType.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .malformed("\(field).\(at).\(columnAt).type '\(typeText)' is not a column type (\(known))", field: field)
                }
                return ColumnSchema(try column.string("name"), type, nullable: try column.optionalBool("nullable") ?? true)
            }
            return TableSchema(try table.string("name"), columns: columns, uniqueBy: try table.optionalStrings("uniqueBy") ?? [])
        }
        let relationships = reader.has("relationships") ? try reader.list("relationships") { (value, at) throws(ProtocolError) -> RelationshipSchema in
            let r = try FieldReader(value, context: "\(field).\(at)")
            return RelationshipSchema(try r.string("name"), from: try r.string("from"), to: try r.string("to"), inverse: try r.string("inverse"))
        } : []
        do {
            return try Schema(version: UInt32(version), tables: tables, relationships: relationships, deletes: deletes)
        } catch {
            throw ProtocolError(.init(error.code), error.message, details: error.details)
        }
    }

    // MARK: Values

    /// A value as its column's type writes it; null for `.null`.
    public static func json(_ value: StoreValue) -> JSONValue {
        switch value {
        case .null: .null
        case .string(let s): .string(s)
        case .integer(let i), .date(let i): .integer(i)
        case .double(let d): .double(d)
        case .bool(let b): .bool(b)
        case .data(let bytes): .string(Base64.encode(bytes))
        case .json(let j): j
        }
    }

    /// Reads `json` as a value of `column`: nil when it is not of the column's type (a date that
    /// is not a whole number, data that is not base64, a double that is not finite). JSON null is
    /// ``StoreValue/null`` (whether the column may hold it is the schema's to say).
    public static func value(_ json: JSONValue, of type: ColumnType) -> StoreValue? {
        if json == .null { return .null }
        switch (type, json) {
        case (.string, .string(let s)): return .string(s)
        case (.integer, .integer(let i)): return .integer(i)
        case (.integer, .double(let d)) where d == d.rounded() && abs(d) < 9.2e18: return .integer(Int64(d))
        case (.double, .double(let d)) where d.isFinite: return .double(d)
        case (.double, .integer(let i)): return .double(Double(i))
        case (.bool, .bool(let b)): return .bool(b)
        case (.date, .integer(let i)): return .date(i)
        case (.data, .string(let s)): return Base64.decode(s).map { .data($0) }
        case (.json, let j): return .json(j)
        default: return nil
        }
    }

    /// A row: `{"id": "<32 hex>", column: value, …}`, columns without a value left out.
    public static func row(id: RowID, values: [String: StoreValue]) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(id.description)]
        for (column, value) in values where value != .null { object[column] = json(value) }
        return .object(object)
    }

    /// The wire form of a row's address, `ubiquity-store://<container>/<store>/<table>/<id>`.
    public static func url(container: String, store: String, _ row: RowRef) -> String {
        StoreRowURL(container: container, store: store, table: row.table, id: row.id)?.description
            ?? "\(StoreRowURL.scheme)://\(container)/\(store)/\(row.table)/\(row.id)"
    }
}
