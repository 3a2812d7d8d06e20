import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore

/// Turns a `store.save`'s changes, as the client sent them, into the store's operations: values
/// read by their columns' types, ids parsed, missing ids made (at random, or from the key of a
/// table unique by meaning). Pure: the random generator is passed in. Returns the operations and
/// the id of each insert, in order.
enum StoreSaveTranslation {
    static func operations(_ changes: [StoreSaveChange], schema: Schema, random: inout some RandomNumberGenerator)
        throws(StoreError) -> (operations: [StoreOperation], inserted: [RowID]) {
        var operations: [StoreOperation] = []
        var inserted: [RowID] = []
        operations.reserveCapacity(changes.count)
        for (index, change) in changes.enumerated() {
            let at = "changes[\(index)]"
            switch change {
            case .insert(let table, let id, let values):
                let schemaTable = try self.table(table, in: schema, at)
                let typed = try self.values(values, of: schemaTable, at)
                let rowID: RowID
                if let id { rowID = try self.id(id, at) }
                else if schemaTable.isUniqueByMeaning { rowID = try MeaningKey.rowID(table: schemaTable, values: typed) }
                else { rowID = RowID.random(using: &random) }
                operations.append(.insert(table: table, id: rowID, values: typed))
                inserted.append(rowID)
            case .update(let table, let id, let values):
                let schemaTable = try self.table(table, in: schema, at)
                operations.append(.update(table: table, id: try self.id(id, at), values: try self.values(values, of: schemaTable, at)))
            case .delete(let table, let id):
                _ = try self.table(table, in: schema, at)
                operations.append(.delete(table: table, id: try self.id(id, at)))
            case .relate(let relationship, let from, let to):
                try self.relationship(relationship, in: schema, at)
                operations.append(.relate(relationship: relationship, from: try self.id(from, at), to: try self.id(to, at)))
            case .unrelate(let relationship, let from, let to):
                try self.relationship(relationship, in: schema, at)
                operations.append(.unrelate(relationship: relationship, from: try self.id(from, at), to: try self.id(to, at)))
            }
        }
        return (operations, inserted)
    }

    private static func table(_ name: String, in schema: Schema, _ at: String) throws(StoreError) -> TableSchema {
        guard let table = schema.table(name) else {
            let known = schema.tables.map(\.name).joined(separator: ", ")
            throw StoreError(.invalidChange, "\(at): there is no table '\(name)' (the tables are \(known))",
                             details: ["table": .string(name), "field": .string(at)])
        }
        return table
    }

    private static func relationship(_ name: String, in schema: Schema, _ at: String) throws(StoreError) {
        guard schema.relationship(name) != nil else {
            throw StoreError(.invalidChange, "\(at): there is no relationship '\(name)'",
                             details: ["relationship": .string(name), "field": .string(at)])
        }
    }

    static func id(_ text: String, _ at: String) throws(StoreError) -> RowID {
        guard let id = RowID(text) else {
            throw StoreError(.invalidChange, "\(at): '\(text)' is not a row id (32 hex digits)", details: ["field": .string(at)])
        }
        return id
    }

    /// `values` read by the columns of `table`.
    static func values(_ values: [String: JSONValue], of table: TableSchema, _ at: String) throws(StoreError) -> [String: StoreValue] {
        var typed: [String: StoreValue] = [:]
        for (name, json) in values {
            typed[name] = try value(json, column: name, of: table, at)
        }
        return typed
    }

    /// One value read by the type of `column` of `table`.
    static func value(_ json: JSONValue, column name: String, of table: TableSchema, _ at: String) throws(StoreError) -> StoreValue {
        guard let column = table.column(name) else {
            throw StoreError(.invalidChange, "\(at): table '\(table.name)' has no column '\(name)'\(suggestion(name, table))",
                             details: ["table": .string(table.name), "column": .string(name), "field": .string(at)])
        }
        guard let value = StoreWire.value(json, of: column.type) else {
            throw StoreError(.invalidChange, "\(at): '\(table.name).\(name)' is a \(column.type) column; \(json.kindNoun) is not \(expected(column.type))",
                             details: ["table": .string(table.name), "column": .string(name), "field": .string(at)])
        }
        return value
    }

    /// `; did you mean 'name'?` for a column name close to one of the table's (or `id`), or nothing.
    static func suggestion(_ name: String, _ table: TableSchema) -> String {
        NameSuggestion.nearest(to: name, in: ["id"] + table.columns.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
    }

    private static func expected(_ type: ColumnType) -> String {
        switch type {
        case .string: "a string"
        case .integer: "a whole number"
        case .double: "a finite number"
        case .bool: "true or false"
        case .date: "a date (a whole number of milliseconds since 1970)"
        case .data: "data (a base64 string)"
        case .json: "JSON"
        }
    }
}
