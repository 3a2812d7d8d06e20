public import UbiquityJSON

/// `item.published`: the peer's own published snapshots that have not expired, soonest expiry first.
public struct ItemPublished: ProtocolOperation {
    public static let name = "item.published"

    public init() {}
    public init(_ request: FieldReader) {}
    public var fields: [String: JSONValue] { [:] }

    public struct Result: OperationResult, Hashable {
        public var items: [PublishedItem]

        public init(items: [PublishedItem]) { self.items = items }

        public var json: JSONValue { .object(["items": .array(items.map(\.json))]) }

        public init(json: JSONValue) throws(ProtocolError) {
            items = try FieldReader(json, context: "item.published result").list("items") {
                (value, context) throws(ProtocolError) in try PublishedItem(json: value, context: context)
            }
        }
    }
}
