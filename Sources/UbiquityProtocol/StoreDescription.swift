public import UbiquityJSON
public import UbiquityStore

/// A relational store as the daemon runs it: the answer of `store.open` and `store.describe`.
public struct StoreDescription: OperationResult, Hashable {
    public var container: String
    public var store: String
    /// This device's id: the name of its own log folder (`logs/<device>`).
    public var device: String
    /// The schema in force: the newest any client opened the store with.
    public var schema: Schema
    /// Per device whose log is in the store's folder (this one's too): how far it is imported.
    public var devices: [StoreDeviceState]
    /// The store's clock token now (what the latest `store.save` or `store.changed` carried).
    public var clock: String
    /// What `store.open` did: `created`, `upgraded` (the schema grew) or `opened`; nil for `store.describe`.
    public var opened: String?
    /// `store.open`'s subscription: the `handle` of this store's `store.changed` events on this
    /// connection; nil for `store.describe`.
    public var handle: Int?

    public init(container: String, store: String, device: String, schema: Schema, devices: [StoreDeviceState], clock: String,
                opened: String? = nil, handle: Int? = nil) {
        self.container = container
        self.store = store
        self.device = device
        self.schema = schema
        self.devices = devices
        self.clock = clock
        self.opened = opened
        self.handle = handle
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "container": .string(container), "store": .string(store), "device": .string(device),
            "schema": StoreWire.json(schema), "devices": .array(devices.map(\.json)), "clock": .string(clock),
        ]
        if let handle { object["handle"] = .integer(Int64(handle)) }
        return .object(object.adding("opened", opened))
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "store description")
        container = try reader.string("container")
        store = try reader.string("store")
        device = try reader.string("device")
        schema = try StoreWire.schema(try reader.value("schema"))
        devices = try reader.list("devices") { (value, at) throws(ProtocolError) in try StoreDeviceState(json: value, context: at) }
        clock = try reader.string("clock")
        opened = try reader.optionalString("opened")
        handle = try reader.optionalInt("handle")
    }
}
