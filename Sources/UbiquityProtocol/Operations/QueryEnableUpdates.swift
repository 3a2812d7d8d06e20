public import UbiquityJSON

/// `query.enableUpdates`: sends the changes held since `query.disableUpdates`, coalesced.
public struct QueryEnableUpdates: QueryAcknowledging {
    public typealias Result = QueryAcknowledgement<QueryEnableUpdates>
    public static let name = "query.enableUpdates"
    public static let acknowledgement: (key: String, value: JSONValue) = ("updates", .string("enabled"))

    public var query: Int

    public init(query: Int) { self.query = query }
}
