public import UbiquityJSON

/// `store.save`: one transaction of inserts, updates, deletes, relates and unrelates, applied
/// whole or not at all, and answered only once this device's segment holding it is `fsync`ed.
public struct StoreSave: ProtocolOperation {
    public static let name = "store.save"

    /// nil: the default container.
    public var container: String?
    public var store: String
    public var changes: [StoreSaveChange]

    public init(container: String? = nil, store: String, changes: [StoreSaveChange]) {
        self.container = container
        self.store = store
        self.changes = changes
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        container = try request.optionalString("container")
        store = try request.string("store")
        changes = try request.list("changes") { (value, at) throws(ProtocolError) in try StoreSaveChange(json: value, context: at) }
    }

    public var fields: [String: JSONValue] {
        ["store": .string(store), "changes": .array(changes.map(\.json))].adding("container", container)
    }

    public struct Result: OperationResult, Hashable {
        public var container: String
        public var store: String
        /// The id of each insert, in the order of the changes.
        public var inserted: [String]
        /// The store's clock token after this transaction.
        public var clock: String
        /// The sequence number of this device's segment that holds it; nil when nothing changed.
        public var segment: Int64?

        public init(container: String, store: String, inserted: [String], clock: String, segment: Int64?) {
            self.container = container
            self.store = store
            self.inserted = inserted
            self.clock = clock
            self.segment = segment
        }

        public var json: JSONValue {
            .object(["container": .string(container), "store": .string(store), "inserted": .array(inserted.map { .string($0) }),
                     "clock": .string(clock), "segment": segment.map { .integer($0) } ?? .null])
        }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "store.save result")
            container = try reader.string("container")
            store = try reader.string("store")
            inserted = try reader.optionalStrings("inserted") ?? []
            clock = try reader.string("clock")
            segment = try reader.optionalInt("segment").map(Int64.init)
        }
    }
}
