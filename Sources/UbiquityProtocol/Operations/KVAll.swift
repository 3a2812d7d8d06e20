public import UbiquityJSON

/// `kv.all`: every key's value in a container's key-value store, and the quota used.
public struct KVAll: KeyValueStoreOperation {
    public static let name = "kv.all"

    /// nil: the default container.
    public var container: String?

    public init(container: String? = nil) { self.container = container }

    public struct Result: OperationResult, Hashable {
        public var container: String
        /// Every key's value in its wire form (``KVValue`` in UbiquityKeyValue reads it).
        public var values: [String: JSONValue]
        /// Keys stored and their bytes, against ``maxKeys`` and ``maxBytes``.
        public var keys: Int
        public var bytes: Int
        public var maxKeys: Int
        public var maxBytes: Int
        public var maxKeyBytes: Int

        public init(container: String, values: [String: JSONValue], keys: Int, bytes: Int, maxKeys: Int, maxBytes: Int,
                    maxKeyBytes: Int) {
            self.container = container
            self.values = values
            self.keys = keys
            self.bytes = bytes
            self.maxKeys = maxKeys
            self.maxBytes = maxBytes
            self.maxKeyBytes = maxKeyBytes
        }

        public var json: JSONValue {
            .object(["container": .string(container), "values": .object(values),
                     "usage": .object(["keys": .integer(Int64(keys)), "bytes": .integer(Int64(bytes))]),
                     "quota": .object(["maxKeys": .integer(Int64(maxKeys)), "maxBytes": .integer(Int64(maxBytes)),
                                       "maxKeyBytes": .integer(Int64(maxKeyBytes))])])
        }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "kv.all result")
            container = try reader.string("container")
            values = try reader.optionalObject("values") ?? [:]
            let usage = try FieldReader(try reader.value("usage"), context: "usage")
            keys = try usage.int("keys")
            bytes = try usage.int("bytes")
            let quota = try FieldReader(try reader.value("quota"), context: "quota")
            maxKeys = try quota.int("maxKeys")
            maxBytes = try quota.int("maxBytes")
            maxKeyBytes = try quota.int("maxKeyBytes")
        }
    }
}
