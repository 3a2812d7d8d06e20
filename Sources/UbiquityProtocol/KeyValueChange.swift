public import UbiquityJSON

/// `kv.changed`: keys of a subscribed store changed, and why (docs/kv-store.md). A connection is
/// not told of its own writes.
///
/// Either it names the keys (`"keys": [...]`), or — when more keys changed since the subscriber
/// last read than the store may hold (its `maxKeys` quota) — it says that any key may have
/// changed (`"all": true`, no `keys`): the subscriber reads the store again (`kv.all`). That
/// keeps what waits for a subscriber that does not read bounded by the quota, however many
/// distinct keys come and go meanwhile.
public struct KeyValueChange: Sendable, Hashable {
    public static let name = "kv.changed"
    /// The subscription (`kv.subscribe`'s `store`).
    public var store: Int
    public var container: String
    /// `serverChange`, `initialSyncChange`, `quotaViolationChange` or `accountChange`.
    public var reason: String
    /// The keys whose values changed, sorted, each once (or, for `quotaViolationChange`, the
    /// refused write's key); nil when any key may have changed (`"all": true` on the wire).
    public var keys: [String]?

    public init(store: Int, container: String, reason: String, keys: [String]?) {
        self.store = store
        self.container = container
        self.reason = reason
        self.keys = keys
    }

    /// Any key may have changed: read the store again.
    public var isAll: Bool { keys == nil }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["event": .string(KeyValueChange.name), "store": .integer(Int64(store)),
                                           "container": .string(container), "reason": .string(reason)]
        if let keys { object["keys"] = .array(keys.map { .string($0) }) } else { object["all"] = .bool(true) }
        return .object(object)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "event")
        store = try reader.int("store")
        container = try reader.string("container")
        reason = try reader.string("reason")
        keys = try reader.optionalBool("all") == true ? nil : try reader.optionalStrings("keys") ?? []
    }
}
