public import UbiquityJSON

/// `query.start`: a live (or one-shot) query; its results come as events
/// (`query.gatheringFinished`, `query.update`, ...).
public struct QueryStart: ProtocolOperation {
    public static let name = "query.start"

    public var parameters: QueryParameters

    public init(_ parameters: QueryParameters) { self.parameters = parameters }
    public init(_ request: FieldReader) throws(ProtocolError) { parameters = try QueryParameters(request) }
    public var fields: [String: JSONValue] { parameters.fields }

    public struct Result: OperationResult, Hashable {
        /// The query's number on this connection: its events and the other `query.*` operations name it.
        public var query: Int

        public init(query: Int) { self.query = query }
        public var json: JSONValue { .object(["query": .integer(Int64(query))]) }
        public init(json: JSONValue) throws(ProtocolError) {
            query = try FieldReader(json, context: "query.start result").int("query")
        }
    }
}
