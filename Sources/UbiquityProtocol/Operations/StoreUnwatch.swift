public import UbiquityJSON

/// `store.unwatch`: ends a live fetch of this connection; no event of it follows.
public struct StoreUnwatch: ProtocolOperation {
    public static let name = "store.unwatch"

    public var watch: Int

    public init(watch: Int) { self.watch = watch }
    public init(_ request: FieldReader) throws(ProtocolError) { watch = try request.int("watch") }
    public var fields: [String: JSONValue] { ["watch": .integer(Int64(watch))] }

    public struct Result: OperationResult, Hashable {
        public var watch: Int

        public init(watch: Int) { self.watch = watch }
        public var json: JSONValue { .object(["watch": .integer(Int64(watch)), "unwatched": .bool(true)]) }
        public init(json: JSONValue) throws(ProtocolError) { watch = try FieldReader(json, context: "store.unwatch result").int("watch") }
    }
}
