public import UbiquityJSON

/// `kv.unsubscribe`: ends a key-value subscription of this connection.
public struct KVUnsubscribe: ProtocolOperation {
    public static let name = "kv.unsubscribe"

    public var store: Int

    public init(store: Int) { self.store = store }
    public init(_ request: FieldReader) throws(ProtocolError) { store = try request.int("store") }
    public var fields: [String: JSONValue] { ["store": .integer(Int64(store))] }

    public struct Result: OperationResult, Hashable {
        public var store: Int

        public init(store: Int) { self.store = store }
        public var json: JSONValue { .object(["store": .integer(Int64(store)), "unsubscribed": .bool(true)]) }
        public init(json: JSONValue) throws(ProtocolError) { store = try FieldReader(json, context: "kv.unsubscribe result").int("store") }
    }
}
