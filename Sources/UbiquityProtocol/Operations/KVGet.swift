public import UbiquityJSON

/// `kv.get`: one key's value in a container's key-value store (docs/kv-store.md).
public struct KVGet: KeyValueKeyOperation {
    public static let name = "kv.get"

    /// nil: the default container.
    public var container: String?
    public var key: String

    public init(container: String? = nil, key: String) {
        self.container = container
        self.key = key
    }

    public struct Result: OperationResult, Hashable {
        public var container: String
        public var key: String
        /// The value in its wire form (``KVValue`` in UbiquityKeyValue reads it); nil: the key has none.
        public var value: JSONValue?

        public init(container: String, key: String, value: JSONValue?) {
            self.container = container
            self.key = key
            self.value = value
        }

        public var json: JSONValue { .object(["container": .string(container), "key": .string(key), "value": value ?? .null]) }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "kv.get result")
            container = try reader.string("container")
            key = try reader.string("key")
            value = reader.has("value") ? try reader.value("value") : nil
        }
    }
}
