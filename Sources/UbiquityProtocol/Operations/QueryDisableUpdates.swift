public import UbiquityJSON

/// `query.disableUpdates`: holds the query's changes until `query.enableUpdates` (`NSMetadataQuery.disableUpdates`).
public struct QueryDisableUpdates: QueryAcknowledging {
    public typealias Result = QueryAcknowledgement<QueryDisableUpdates>
    public static let name = "query.disableUpdates"
    public static let acknowledgement: (key: String, value: JSONValue) = ("updates", .string("disabled"))

    public var query: Int

    public init(query: Int) { self.query = query }
}
