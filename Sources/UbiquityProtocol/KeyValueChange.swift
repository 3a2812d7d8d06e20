public import UbiquityJSON

/// `kv.changed`: keys of a subscribed store changed, and why (docs/kv-store.md). A connection is
/// not told of its own writes.
public struct KeyValueChange: Sendable, Hashable {
    public static let name = "kv.changed"
    /// The subscription (`kv.subscribe`'s `store`).
    public var store: Int
    public var container: String
    /// `serverChange`, `initialSyncChange`, `quotaViolationChange` or `accountChange`.
    public var reason: String
    /// The keys whose values changed (or, for `quotaViolationChange`, the refused write's key).
    public var keys: [String]

    public init(store: Int, container: String, reason: String, keys: [String]) {
        self.store = store
        self.container = container
        self.reason = reason
        self.keys = keys
    }

    public var json: JSONValue {
        .object(["event": .string(KeyValueChange.name), "store": .integer(Int64(store)), "container": .string(container),
                 "reason": .string(reason), "keys": .array(keys.map { .string($0) })])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "event")
        store = try reader.int("store")
        container = try reader.string("container")
        reason = try reader.string("reason")
        keys = try reader.optionalStrings("keys") ?? []
    }
}
