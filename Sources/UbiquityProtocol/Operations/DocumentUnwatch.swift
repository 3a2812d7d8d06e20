public import UbiquityJSON

/// `document.unwatch`: ends a watch of this connection.
public struct DocumentUnwatch: ProtocolOperation {
    public static let name = "document.unwatch"

    public var watch: Int

    public init(watch: Int) { self.watch = watch }
    public init(_ request: FieldReader) throws(ProtocolError) { watch = try request.int("watch") }
    public var fields: [String: JSONValue] { ["watch": .integer(Int64(watch))] }

    public struct Result: OperationResult, Hashable {
        public var watch: Int

        public init(watch: Int) { self.watch = watch }
        public var json: JSONValue { .object(["watch": .integer(Int64(watch)), "unwatched": .bool(true)]) }
        public init(json: JSONValue) throws(ProtocolError) { watch = try FieldReader(json, context: "document.unwatch result").int("watch") }
    }
}
