import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore
import UbiquityStoreFiles

/// A `store.fetch` checked against the schema: its conditions as a filter over rows, and its sort
/// keys. Pure. Unknown tables and columns are `store.invalidChange` with a "did you mean"; a
/// condition's value must be of its column's type.
struct StoreFetchPlan: Sendable {
    let table: String
    let filter: (@Sendable (StoreRow) -> Bool)?
    let sort: [(column: String, ascending: Bool)]

    init(_ request: StoreFetch, schema: Schema, limits: StoreLimits) throws {
        guard let table = schema.table(request.table) else {
            let known = schema.tables.map(\.name).joined(separator: ", ")
            throw StoreError(.invalidChange, "there is no table '\(request.table)' (the tables are \(known))", details: ["table": .string(request.table)])
        }
        guard request.conditions.count <= limits.maxConditions else {
            throw ProtocolError.malformed("'where' has \(request.conditions.count) conditions; at most \(limits.maxConditions)", field: "where", limit: limits.maxConditions)
        }
        guard request.sort.count <= limits.maxSortKeys else {
            throw ProtocolError.malformed("'sort' has \(request.sort.count) keys; at most \(limits.maxSortKeys)", field: "sort", limit: limits.maxSortKeys)
        }
        self.table = table.name
        var tests: [@Sendable (StoreRow) -> Bool] = []
        for (index, condition) in request.conditions.enumerated() {
            let at = "where[\(index)]"
            let value: StoreValue
            if condition.column == "id" {
                guard case .string(let text) = condition.value else {
                    throw StoreError(.invalidChange, "\(at): 'id' is compared with 32 hex digits, not \(condition.value.kindNoun)", details: ["field": .string(at)])
                }
                value = .string((try StoreSaveTranslation.id(text, at)).description)
            } else {
                value = try StoreSaveTranslation.value(condition.value, column: condition.column, of: table, at)
            }
            if value == .null && condition.op != .equal && condition.op != .notEqual {
                throw StoreError(.invalidChange, "\(at): null can only be compared with == or !=", details: ["field": .string(at)])
            }
            let column = condition.column, op = condition.op
            tests.append { row in StoreFetchPlan.holds(row[column], op, value) }
        }
        let all = tests
        if all.isEmpty {
            filter = nil
        } else {
            filter = { (row: StoreRow) -> Bool in
                for test in all where !test(row) { return false }
                return true
            }
        }
        var keys: [(column: String, ascending: Bool)] = []
        for key in request.sort {
            var column = key, ascending = true
            if key.hasSuffix(":desc") { column = String(key.dropLast(5)); ascending = false }
            else if key.hasSuffix(":asc") { column = String(key.dropLast(4)) }
            guard column == "id" || table.column(column) != nil else {
                throw StoreError(.invalidChange, "table '\(table.name)' has no column '\(column)' to sort by\(StoreSaveTranslation.suggestion(column, table))",
                                 details: ["table": .string(table.name), "column": .string(column), "field": .string("sort")])
            }
            keys.append((column, ascending))
        }
        sort = keys
    }

    /// Whether a row's value meets a condition: the order of ``StoreRow/compare(_:_:)``, where
    /// no value (null) is below every value and meets no ordering.
    static func holds(_ found: StoreValue, _ op: ComparisonOperator, _ value: StoreValue) -> Bool {
        let order = StoreRow.compare(found, value)
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return found != .null && order < 0
        case .lessOrEqual: return found != .null && order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return found != .null && order >= 0
        default: return false    // refused when the condition was read (StoreCondition.operators)
        }
    }
}
