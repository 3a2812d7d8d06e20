import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore

/// What `ubiq store insert`, `update`, `relate` and `unrelate` read from their command line,
/// typed by the store's schema (from `store.describe`). Pure.
///
/// A value is read by its column's type: `string` as it is; `integer` a whole number; `double` a
/// finite number; `bool` `true` or `false`; `date` an ISO-8601 date (`2026-01-01`,
/// `2026-01-01T10:00:00Z`) or whole milliseconds since 1970; `data` base64; `json` any JSON text.
enum StoreValueText {
    /// The table named `name`, or a sentence listing the tables.
    static func table(_ name: String, in schema: Schema) throws(StoreValueTextError) -> TableSchema {
        if let table = schema.table(name) { return table }
        let names = schema.tables.map(\.name)
        let hint = NameSuggestion.nearest(to: name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw StoreValueTextError("the store has no table '\(name)'\(hint); its tables are \(names.joined(separator: ", "))")
    }

    /// The relationship named `name` (its `from` end's name), or a sentence listing them.
    static func relationship(_ name: String, in schema: Schema) throws(StoreValueTextError) -> RelationshipSchema {
        if let relationship = schema.relationship(name) { return relationship }
        let names = schema.relationships.map(\.name)
        let hint = NameSuggestion.nearest(to: name, in: names + schema.relationships.map(\.inverse)).map { " (did you mean '\($0)'?)" } ?? ""
        let known = names.isEmpty ? "it has none" : "its relationships are " + names.joined(separator: ", ")
        throw StoreValueTextError("the store has no relationship '\(name)'\(hint); \(known) (name a relationship by its from end)")
    }

    /// Each `COLUMN=VALUE` read by the type of its column of `table`; each column at most once.
    static func values(_ assignments: [String], of table: TableSchema) throws(StoreValueTextError) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for assignment in assignments {
            guard let equals = assignment.utf8.firstIndex(of: UInt8(ascii: "=")) else {
                throw StoreValueTextError("'\(assignment)' is not COLUMN=VALUE")
            }
            let name = String(assignment[..<equals]), text = String(assignment[assignment.utf8.index(after: equals)...])
            guard name != "id" else { throw StoreValueTextError("'id' is not a column to set: give it with --id") }
            guard let column = table.column(name) else {
                let hint = NameSuggestion.nearest(to: name, in: table.columns.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
                throw StoreValueTextError("table '\(table.name)' has no column '\(name)'\(hint) (its columns are \(table.columns.map(\.name).joined(separator: ", ")))")
            }
            guard values[name] == nil else { throw StoreValueTextError("column '\(name)' is given twice") }
            values[name] = try value(text, column: column, of: table)
        }
        return values
    }

    /// `text` as a value of `column` on the wire (docs/protocol.md, "Relational stores").
    static func value(_ text: String, column: ColumnSchema, of table: TableSchema) throws(StoreValueTextError) -> JSONValue {
        func wrong(_ expected: String) -> StoreValueTextError {
            let article = column.type == .integer ? "an" : "a"
            return StoreValueTextError("'\(table.name).\(column.name)' is \(article) \(column.type) column: '\(text)' is not \(expected)")
        }
        switch column.type {
        case .string:
            return .string(text)
        case .integer:
            guard let number = Int64(text) else { throw wrong("a whole number") }
            return .integer(number)
        case .double:
            guard let number = Double(text), number.isFinite else { throw wrong("a finite number") }
            return .double(number)
        case .bool:
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw wrong("true or false")
            }
        case .date:
            if let ms = Int64(text) { return .integer(ms) }
            guard let ms = ISODate.milliseconds(parsing: text) else {
                throw wrong("a date (ISO 8601, like 2026-01-01T10:00:00Z, or milliseconds since 1970)")
            }
            return .integer(ms)
        case .data:
            guard StoreWire.value(.string(text), of: .data) != nil else { throw wrong("base64 (RFC 4648, with padding)") }
            return .string(text)
        case .json:
            guard let value = try? JSONLine.decode(Array(text.utf8)) else { throw wrong("JSON") }
            return value
        }
    }

    /// A row of `table` named on the command line: its id (32 hex digits), or — for a table
    /// unique by meaning with one key column — that key's value (a tag's name), from which the
    /// id is derived as the daemon derives it.
    static func row(_ text: String, of table: TableSchema) throws(StoreValueTextError) -> String {
        if let id = RowID(text) { return id.description }
        guard table.uniqueBy.count == 1, let key = table.column(table.uniqueBy[0]) else {
            throw StoreValueTextError("'\(text)' is not a row id of '\(table.name)' (32 hex digits)")
        }
        guard let json = try? value(text, column: key, of: table), let typed = StoreWire.value(json, of: key.type),
              let id = try? MeaningKey.rowID(table: table, values: [key.name: typed]) else {
            throw StoreValueTextError("'\(text)' is neither a row id of '\(table.name)' (32 hex digits) nor a value of its key column '\(key.name)'")
        }
        return id.description
    }
}
