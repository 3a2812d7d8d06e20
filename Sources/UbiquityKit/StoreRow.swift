public import FoundationEssentials
public import UbiquityStore
public import UbiquityJSON
public import UbiquityProtocol

/// One row of a relational store as a fetch returns it: its id, its columns' values by the
/// schema's types, and, for the relationships the fetch asked for (``StoreFetchRequest/related``),
/// the ids of the rows it is related to.
public struct StoreRow: Sendable, Hashable, Identifiable {
    /// 32 lowercase hex digits.
    public let id: String
    /// Every column that has a value (a column without one is absent: ``subscript(_:)`` is `.null`).
    public var values: [String: StoreValue]
    /// Per relationship asked for: the related rows' ids, sorted.
    public var related: [String: [String]]

    public init(id: String, values: [String: StoreValue], related: [String: [String]] = [:]) {
        self.id = id
        self.values = values
        self.related = related
    }

    /// A column's value; `.null` when the row has none. `id` is the row's id as a string.
    public subscript(column: String) -> StoreValue {
        column == "id" ? .string(id) : values[column] ?? .null
    }

    public func string(_ column: String) -> String? {
        if case .string(let text) = self[column] { return text }
        return nil
    }
    public func integer(_ column: String) -> Int64? {
        if case .integer(let number) = self[column] { return number }
        return nil
    }
    public func double(_ column: String) -> Double? {
        switch self[column] {
        case .double(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }
    public func bool(_ column: String) -> Bool? {
        if case .bool(let flag) = self[column] { return flag }
        return nil
    }
    /// A `date` column's value (kept to the millisecond).
    public func date(_ column: String) -> Date? {
        if case .date(let millis) = self[column] { return Date(timeIntervalSince1970: Double(millis) / 1000) }
        return nil
    }
    public func data(_ column: String) -> [UInt8]? {
        if case .data(let bytes) = self[column] { return bytes }
        return nil
    }

    /// Reads a row of `table` from the wire: each column by its type in `schema`; a key naming
    /// one of the table's relationships (its own name, or the inverse's for a relationship to it)
    /// as a list of ids. A key the schema does not know (a column a newer schema added since
    /// this client opened the store) is kept as `.json`.
    ///
    /// - Throws: `request.malformed` for a row without an id, or a value not of its column's type.
    public init(json: JSONValue, table: String, schema: Schema) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "row of \(table)")
        id = try reader.string("id")
        let columns = schema.tables.first { $0.name == table }?.columns ?? []
        let types = Dictionary(columns.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        var ends = Set(schema.relationships.filter { $0.from == table }.map(\.name))
        ends.formUnion(schema.relationships.filter { $0.to == table }.map(\.inverse))
        var values: [String: StoreValue] = [:]
        var related: [String: [String]] = [:]
        for (key, value) in reader.object where key != "id" {
            if let type = types[key] {
                guard let read = StoreWire.value(value, of: type) else {
                    throw .malformed("row \(id) of \(table): '\(key)' is not a \(type.rawValue) value", field: key)
                }
                if read != .null { values[key] = read }
            } else if ends.contains(key) {
                guard let ids = try reader.optionalStrings(key) else { continue }
                related[key] = ids.sorted()
            } else if value != .null {
                values[key] = .json(value)
            }
        }
        self.values = values
        self.related = related
    }
}
