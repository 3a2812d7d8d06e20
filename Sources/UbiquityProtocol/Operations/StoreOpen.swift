public import UbiquityJSON
public import UbiquityStore

/// `store.open`: opens a relational store of a container with the client's schema — creating it,
/// or upgrading it when the schema only adds to the one in force (`store.schemaNotAdditive`
/// otherwise) — and subscribes this connection to its `store.changed` events.
public struct StoreOpen: ProtocolOperation {
    public static let name = "store.open"
    public typealias Result = StoreDescription

    /// nil: the default container.
    public var container: String?
    public var store: String
    public var schema: Schema

    public init(container: String? = nil, store: String, schema: Schema) {
        self.container = container
        self.store = store
        self.schema = schema
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        container = try request.optionalString("container")
        store = try request.string("store")
        schema = try StoreWire.schema(try request.value("schema"))
    }

    public var fields: [String: JSONValue] { ["store": .string(store), "schema": StoreWire.json(schema)].adding("container", container) }
}
