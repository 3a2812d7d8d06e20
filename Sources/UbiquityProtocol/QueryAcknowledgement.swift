public import UbiquityJSON

/// The answer of a ``QueryAcknowledging`` operation: `{"query": 3, "stopped": true}`.
public struct QueryAcknowledgement<Operation: QueryAcknowledging>: OperationResult, Hashable {
    public var query: Int

    public init(query: Int) { self.query = query }

    public var json: JSONValue {
        .object(["query": .integer(Int64(query)), Operation.acknowledgement.key: Operation.acknowledgement.value])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        query = try FieldReader(json, context: "\(Operation.name) result").int("query")
    }
}
