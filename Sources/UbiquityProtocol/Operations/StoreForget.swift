public import UbiquityJSON

/// `store.forget`: this device's compaction stops waiting for another device's acknowledgement
/// (a device that will not come back), until that device acknowledges again. Nothing of the
/// other device's is removed (docs/stores.md, "Forgetting a device").
public struct StoreForget: ProtocolOperation {
    public static let name = "store.forget"

    /// nil: the default container.
    public var container: String?
    public var store: String
    /// The device's id, as `store.describe` and `status` name it.
    public var device: String

    public init(container: String? = nil, store: String, device: String) {
        self.container = container
        self.store = store
        self.device = device
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        container = try request.optionalString("container")
        store = try request.string("store")
        device = try request.string("device")
    }

    public var fields: [String: JSONValue] {
        ["store": .string(store), "device": .string(device)].adding("container", container)
    }

    public struct Result: OperationResult, Hashable {
        public var container: String
        public var store: String
        /// The device forgotten.
        public var device: String
        /// How many of this device's own segments compaction removed at once, now that it does
        /// not wait for the device forgotten.
        public var removed: Int64
        /// The devices compaction still waits for (their acknowledgement is behind this device's
        /// newest snapshot), in order.
        public var waitingFor: [String]

        public init(container: String, store: String, device: String, removed: Int64, waitingFor: [String]) {
            self.container = container
            self.store = store
            self.device = device
            self.removed = removed
            self.waitingFor = waitingFor
        }

        public var json: JSONValue {
            .object(["container": .string(container), "store": .string(store), "device": .string(device), "forgotten": .bool(true),
                     "removed": .integer(removed), "waitingFor": .array(waitingFor.map { .string($0) })])
        }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "store.forget result")
            container = try reader.string("container")
            store = try reader.string("store")
            device = try reader.string("device")
            removed = Int64(try reader.int("removed"))
            waitingFor = try reader.optionalStrings("waitingFor") ?? []
        }
    }
}
