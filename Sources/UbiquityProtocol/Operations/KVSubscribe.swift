public import UbiquityJSON

/// `kv.subscribe`: `kv.changed` events for the store's changes made elsewhere.
public struct KVSubscribe: KeyValueStoreOperation {
    public static let name = "kv.subscribe"

    /// nil: the default container.
    public var container: String?

    public init(container: String? = nil) { self.container = container }

    public struct Result: OperationResult, Hashable {
        /// The subscription's number: its `kv.changed` events and `kv.unsubscribe` name it.
        public var store: Int
        public var container: String

        public init(store: Int, container: String) {
            self.store = store
            self.container = container
        }

        public var json: JSONValue { .object(["store": .integer(Int64(store)), "container": .string(container)]) }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "kv.subscribe result")
            store = try reader.int("store")
            container = try reader.string("container")
        }
    }
}
