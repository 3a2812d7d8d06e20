import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore
import UbiquityStoreFiles

/// A `store.fetch` checked against the schema: its conditions and its predicate as a filter over
/// rows, its sort keys, and the relationship ends its rows carry. Pure. Unknown tables, columns
/// and relationship ends are `store.invalidChange` with a "did you mean"; a condition's value
/// must be of its column's type; the predicate's errors are the predicate language's
/// (`predicate.*`, with the offset), its names the table's columns, `id` and relationship ends.
///
/// The predicate is evaluated in Swift over the rows read from the cache, as the conditions are;
/// translating it to SQL is a later speed-up. A relationship end it names costs a read of the
/// whole join table (and of the other table, for its display keys) per fetch.
struct StoreFetchPlan: Sendable {
    let table: String
    /// The `where` conditions, all to hold; nil when there are none.
    let conditions: (@Sendable (StoreRow) -> Bool)?
    /// The `predicate`, compiled; nil when there is none.
    let predicate: CompiledPredicate?
    /// What each of the predicate's columns is (``StorePredicateRow``).
    let slots: [StorePredicateRow.Slot]
    /// Every relationship end of the table, in the order of the predicate's end slots.
    let ends: [StoreRelationshipEnd]
    /// The positions in ``ends`` of the ends the predicate reads: their related rows are loaded.
    let endsRead: [Int]
    /// The ends each row carries, as the request's `related` names them.
    let related: [StoreRelationshipEnd]
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
            conditions = nil
        } else {
            conditions = { (row: StoreRow) -> Bool in
                for test in all where !test(row) { return false }
                return true
            }
        }
        let ends = StoreRelationshipEnd.ends(of: table.name, in: schema)
        self.ends = ends
        var slots: [StorePredicateRow.Slot] = [.id]
        var names: [(name: String, kind: PredicateColumn.Kind)] = [("id", .string)]
        for column in table.columns {
            slots.append(.column(column.name))
            names.append((column.name, StorePredicateRow.kind(column.type)))
        }
        for (index, end) in ends.enumerated() {
            slots.append(.end(index))
            names.append((end.name, .list))
        }
        self.slots = slots
        if let text = request.predicate {
            let parsed = try MetadataPredicate(parsing: text, columns: PredicateColumns(table: table.name, names))
            predicate = parsed.compiled()
            endsRead = parsed.columns.sorted().compactMap { index in
                if case .end(let end) = slots[index] { return end }
                return nil
            }
        } else {
            predicate = nil
            endsRead = []
        }
        var related: [StoreRelationshipEnd] = []
        for (index, name) in request.related.enumerated() {
            let end = try StoreRelationshipEnd.named(name, of: table.name, in: schema, field: "related[\(index)]")
            guard !related.contains(end) else {
                throw StoreError(.invalidChange, "related[\(index)]: '\(name)' is named twice", details: ["field": .string("related[\(index)]")])
            }
            related.append(end)
        }
        self.related = related
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

    /// The filter over rows: the conditions, then the predicate, which reads the related rows of
    /// end `i` of ``ends`` (each by display key) in `lists[i]`; nil when neither is given.
    func filter(lists: [[RowID: [Value]]]) -> (@Sendable (StoreRow) -> Bool)? {
        let conditions = self.conditions, predicate = self.predicate, slots = self.slots
        guard conditions != nil || predicate != nil else { return nil }
        return { (row: StoreRow) -> Bool in
            if let conditions, !conditions(row) { return false }
            guard let predicate else { return true }
            return predicate.evaluate(StorePredicateRow(row: row, slots: slots, lists: lists))
        }
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
