public import UbiquityJSON

/// `query.stop`: no more events; the results stay readable until `query.release` or the connection closes.
public struct QueryStop: QueryAcknowledging {
    public typealias Result = QueryAcknowledgement<QueryStop>
    public static let name = "query.stop"
    public static let acknowledgement: (key: String, value: JSONValue) = ("stopped", .bool(true))

    public var query: Int

    public init(query: Int) { self.query = query }
}
