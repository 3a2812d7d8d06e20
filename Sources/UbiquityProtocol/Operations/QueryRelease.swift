public import UbiquityJSON

/// `query.release`: forgets the query and its results.
public struct QueryRelease: QueryAcknowledging {
    public typealias Result = QueryAcknowledgement<QueryRelease>
    public static let name = "query.release"
    public static let acknowledgement: (key: String, value: JSONValue) = ("released", .bool(true))

    public var query: Int

    public init(query: Int) { self.query = query }
}
