public import UbiquityJSON

/// An operation on one query of the connection: its only parameter is `query`, the number
/// `query.start` answered.
public protocol QueryOperation: ProtocolOperation {
    var query: Int { get }
    init(query: Int)
}

extension QueryOperation {
    public init(_ request: FieldReader) throws(ProtocolError) { self.init(query: try request.int("query")) }
    public var fields: [String: JSONValue] { ["query": .integer(Int64(query))] }
}
