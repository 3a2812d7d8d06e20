public import UbiquityJSON

/// `kv.synchronize`: reads every device's file of the store again now.
public struct KVSynchronize: KeyValueStoreOperation {
    public static let name = "kv.synchronize"

    /// nil: the default container.
    public var container: String?

    public init(container: String? = nil) { self.container = container }

    public struct Result: OperationResult, Hashable {
        public var container: String
        /// The keys whose values that reading changed.
        public var changed: [String]

        public init(container: String, changed: [String]) {
            self.container = container
            self.changed = changed
        }

        public var json: JSONValue {
            .object(["container": .string(container), "synchronized": .bool(true), "changed": .array(changed.map { .string($0) })])
        }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "kv.synchronize result")
            container = try reader.string("container")
            changed = try reader.optionalStrings("changed") ?? []
        }
    }
}
