public import UbiquityJSON

/// `store.fetch`: the rows of one table that meet every condition of `where` and the
/// `predicate` (both when both are given), sorted, at most `limit`; each row with the related
/// row ids of the relationship ends named in `related`.
public struct StoreFetch: ProtocolOperation {
    public static let name = "store.fetch"

    /// nil: the default container.
    public var container: String?
    public var store: String
    public var table: String
    public var conditions: [StoreCondition]
    /// The predicate language over the table's columns (`name BEGINSWITH 'car' AND tags CONTAINS 'mall'`).
    public var predicate: String?
    /// Relationship ends of the table (`tags` of items, `items` of tags): each row carries each
    /// as a key whose value is the sorted list of related row ids.
    public var related: [String]
    /// `column`, `column:asc` or `column:desc`; ties broken by id.
    public var sort: [String]
    public var limit: Int?

    public init(container: String? = nil, store: String, table: String, where conditions: [StoreCondition] = [],
                predicate: String? = nil, related: [String] = [], sort: [String] = [], limit: Int? = nil) {
        self.container = container
        self.store = store
        self.table = table
        self.conditions = conditions
        self.predicate = predicate
        self.related = related
        self.sort = sort
        self.limit = limit
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        container = try request.optionalString("container")
        store = try request.string("store")
        table = try request.string("table")
        conditions = request.has("where") ? try request.list("where") { (value, at) throws(ProtocolError) in try StoreCondition(json: value, context: at) } : []
        predicate = try request.optionalString("predicate")
        related = try request.optionalStrings("related", orSingle: true) ?? []
        sort = try request.optionalStrings("sort", orSingle: true) ?? []
        limit = try request.optionalInt("limit")
        if let limit, limit < 0 { throw .malformed("field 'limit' must be 0 or more, found \(limit)", field: "limit") }
    }

    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = ["store": .string(store), "table": .string(table)]
        if !conditions.isEmpty { fields["where"] = .array(conditions.map(\.json)) }
        if let predicate { fields["predicate"] = .string(predicate) }
        if !related.isEmpty { fields["related"] = .array(related.map { .string($0) }) }
        if !sort.isEmpty { fields["sort"] = .array(sort.map { .string($0) }) }
        if let limit { fields["limit"] = .integer(Int64(limit)) }
        return fields.adding("container", container)
    }

    public struct Result: OperationResult, Hashable {
        public var container: String
        public var store: String
        public var table: String
        /// Each row: `id` and every column with a value (``StoreWire``).
        public var rows: [JSONValue]
        public var clock: String

        public init(container: String, store: String, table: String, rows: [JSONValue], clock: String) {
            self.container = container
            self.store = store
            self.table = table
            self.rows = rows
            self.clock = clock
        }

        public var json: JSONValue {
            .object(["container": .string(container), "store": .string(store), "table": .string(table), "rows": .array(rows),
                     "count": .integer(Int64(rows.count)), "clock": .string(clock)])
        }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "store.fetch result")
            container = try reader.string("container")
            store = try reader.string("store")
            table = try reader.string("table")
            rows = try reader.array("rows")
            clock = try reader.string("clock")
        }
    }
}
