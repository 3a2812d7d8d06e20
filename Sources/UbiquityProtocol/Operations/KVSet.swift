public import UbiquityJSON

/// `kv.set`: stores one key's value; answered once it is on disk.
public struct KVSet: ProtocolOperation {
    public static let name = "kv.set"

    /// nil: the default container.
    public var container: String?
    public var key: String
    /// The value in its wire form (``KVValue`` in UbiquityKeyValue writes it).
    public var value: JSONValue

    public init(container: String? = nil, key: String, value: JSONValue) {
        self.container = container
        self.key = key
        self.value = value
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        container = try request.optionalString("container")
        key = try request.string("key")
        value = try request.value("value")
    }

    public var fields: [String: JSONValue] { ["key": .string(key), "value": value].adding("container", container) }

    public struct Result: OperationResult, Hashable {
        public var container: String
        public var key: String

        public init(container: String, key: String) {
            self.container = container
            self.key = key
        }

        public var json: JSONValue { .object(["container": .string(container), "key": .string(key), "stored": .bool(true)]) }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "kv.set result")
            container = try reader.string("container")
            key = try reader.string("key")
        }
    }
}
