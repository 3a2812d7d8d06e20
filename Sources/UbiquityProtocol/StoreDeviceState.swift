public import UbiquityJSON

/// How far this device has imported one device's log of a store, and why it stopped there: one
/// entry of `devices` in `store.open`, `store.describe` and `status` (docs/stores.md, "Import
/// exactly once").
public struct StoreDeviceState: Sendable, Hashable {
    /// `current`, `degraded` or `needsUpgrade`.
    public var device: String
    /// The last of its segments imported (0: none).
    public var imported: Int64
    public var state: String
    /// For `degraded` and `needsUpgrade`: the segment the import waits at.
    public var sequence: Int64?
    /// For `degraded`: the segment's problem, a `store.segment*` code and its sentence.
    public var code: String?
    public var reason: String?
    /// For `needsUpgrade`: the schema version the segment was written with.
    public var schemaVersion: Int64?
    /// In `status`: when this daemon last imported (or, for this device, wrote) one of its
    /// segments, milliseconds since 1970; nil when it has not since it started.
    public var lastImport: Int64?
    /// In `status`: how many of its segments are present past the last imported.
    public var waiting: Int64?
    /// In `status`, only for a device silent too long (30 days): when its acknowledgement file
    /// last changed, milliseconds since 1970. Compaction waits for it meanwhile.
    public var silentSince: Int64?
    /// In `status`, only for a device forgotten (`store.forget`) that has not acknowledged
    /// anything since: `true`. Compaction does not wait for it.
    public var forgotten: Bool?

    public init(device: String, imported: Int64, state: String, sequence: Int64? = nil, code: String? = nil,
                reason: String? = nil, schemaVersion: Int64? = nil) {
        self.device = device
        self.imported = imported
        self.state = state
        self.sequence = sequence
        self.code = code
        self.reason = reason
        self.schemaVersion = schemaVersion
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["device": .string(device), "imported": .integer(imported), "state": .string(state)]
        if let sequence { object["sequence"] = .integer(sequence) }
        if let code { object["code"] = .string(code) }
        if let reason { object["reason"] = .string(reason) }
        if let schemaVersion { object["schemaVersion"] = .integer(schemaVersion) }
        if let lastImport { object["lastImport"] = .integer(lastImport) }
        if let waiting { object["waiting"] = .integer(waiting) }
        if let silentSince { object["silentSince"] = .integer(silentSince) }
        if let forgotten { object["forgotten"] = .bool(forgotten) }
        return .object(object)
    }

    public init(json: JSONValue, context: String) throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        device = try reader.string("device")
        imported = Int64(try reader.int("imported"))
        state = try reader.string("state")
        sequence = try reader.optionalInt("sequence").map(Int64.init)
        code = try reader.optionalString("code")
        reason = try reader.optionalString("reason")
        schemaVersion = try reader.optionalInt("schemaVersion").map(Int64.init)
        lastImport = try reader.optionalInt("lastImport").map(Int64.init)
        waiting = try reader.optionalInt("waiting").map(Int64.init)
        silentSince = try reader.optionalInt("silentSince").map(Int64.init)
        forgotten = try reader.optionalBool("forgotten")
    }
}
