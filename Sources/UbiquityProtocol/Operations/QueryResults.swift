public import UbiquityJSON

/// `query.results`: a query's whole result set now. The daemon writes the answer with
/// ``ResultEncoder/queryResults(id:query:rows:)`` straight into the line's bytes (in pieces for a
/// large set); ``Result`` is what a client reads of it.
public struct QueryResults: QueryOperation {
    public static let name = "query.results"

    public var query: Int

    public init(query: Int) { self.query = query }

    public struct Result: OperationResult, Hashable {
        public var query: Int
        public var results: [WireItem]

        public init(query: Int, results: [WireItem]) {
            self.query = query
            self.results = results
        }

        public var json: JSONValue {
            .object(["query": .integer(Int64(query)), "count": .integer(Int64(results.count)),
                     "results": .array(results.map(\.json))])
        }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "query.results result")
            query = try reader.int("query")
            results = try reader.list("results") { (value, context) throws(ProtocolError) in try WireItem(json: value, context: context) }
        }
    }
}
