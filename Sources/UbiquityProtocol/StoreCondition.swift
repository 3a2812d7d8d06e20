public import UbiquityJSON
public import UbiquityPredicate

/// One condition of a `store.fetch`'s `where`: `{"column":"quantity","op":">","value":1}`.
/// Conditions are all to hold (AND). The value is read by the column's type; `null` matches a
/// column without a value (with `==` and `!=` only).
public struct StoreCondition: Sendable, Hashable {
    /// The operators a condition may use: equality and ordering (the predicate language's own).
    public static let operators: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]

    public var column: String
    public var op: ComparisonOperator
    public var value: JSONValue

    public init(_ column: String, _ op: ComparisonOperator, _ value: JSONValue) {
        self.column = column
        self.op = op
        self.value = value
    }

    public init(json: JSONValue, context: String) throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        column = try reader.string("column")
        let text = try reader.optionalString("op") ?? "=="
        guard let op = ComparisonOperator(rawValue: text), Self.operators.contains(op) else {
            throw .malformed("\(context).op '\(text)' is not one of \(Self.operators.map(\.rawValue).joined(separator: " "))", field: "where")
        }
        self.op = op
        value = try reader.value("value")
    }

    public var json: JSONValue { .object(["column": .string(column), "op": .string(op.rawValue), "value": value]) }
}
