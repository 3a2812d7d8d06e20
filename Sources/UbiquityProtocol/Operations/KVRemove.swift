public import UbiquityJSON

/// `kv.remove`: removes one key; answered once the removal is on disk.
public struct KVRemove: KeyValueKeyOperation {
    public static let name = "kv.remove"

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
        /// Whether the key had a value.
        public var removed: Bool

        public init(container: String, key: String, removed: Bool) {
            self.container = container
            self.key = key
            self.removed = removed
        }

        public var json: JSONValue { .object(["container": .string(container), "key": .string(key), "removed": .bool(removed)]) }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "kv.remove result")
            container = try reader.string("container")
            key = try reader.string("key")
            removed = try reader.bool("removed")
        }
    }
}
