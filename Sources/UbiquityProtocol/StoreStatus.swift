public import UbiquityJSON
import UbiquityPredicate

/// One open relational store in `status`: its schema version, how far each device's log is
/// imported (``StoreDeviceState``, with `lastImport` and `waiting`), and what its tombstones
/// came to since the store opened.
public struct StoreStatus: Sendable, Hashable {
    public var container: String
    public var store: String
    public var schemaVersion: Int64
    public var devices: [StoreDeviceState]
    /// Deleted rows this device shrank to their generation floors since the store opened.
    public var floored: Int64
    /// Repair segments this device wrote since the store opened (a late edit brought back a row
    /// whose columns this device held).
    public var repairs: Int64

    public init(container: String, store: String, schemaVersion: Int64, devices: [StoreDeviceState],
                floored: Int64 = 0, repairs: Int64 = 0) {
        self.container = container
        self.store = store
        self.schemaVersion = schemaVersion
        self.devices = devices
        self.floored = floored
        self.repairs = repairs
    }

    public var json: JSONValue {
        .object(["container": .string(container), "store": .string(store), "schemaVersion": .integer(schemaVersion),
                 "devices": .array(devices.map(\.json)), "floored": .integer(floored), "repairs": .integer(repairs)])
    }

    public init(json: JSONValue, context: String) throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        container = try reader.string("container")
        store = try reader.string("store")
        schemaVersion = Int64(try reader.int("schemaVersion"))
        devices = try reader.list("devices") { (value, at) throws(ProtocolError) in try StoreDeviceState(json: value, context: at) }
        // Absent from daemons older than these counts.
        floored = Int64(try reader.optionalInt("floored") ?? 0)
        repairs = Int64(try reader.optionalInt("repairs") ?? 0)
    }

    /// One sentence per device whose import does not go on, for `status`'s `degraded`.
    public var degradedSentences: [String] {
        devices.compactMap { device in
            if let since = device.silentSince, device.state == "current" {
                return "store \(store) of \(container): device \(device.device) has acknowledged nothing since \(ISODate.format(ISODate.seconds(milliseconds: since))); "
                    + "this device keeps the segments it has not acknowledged until it does"
            }
            switch device.state {
            case "degraded":
                return "store \(store) of \(container): the import of device \(device.device) waits at a damaged segment (\(device.reason ?? device.code ?? "unknown"))"
            case "needsUpgrade":
                return "store \(store) of \(container): device \(device.device) writes with schema version \(device.schemaVersion ?? 0); "
                    + "open the store with it to import segment \(device.sequence ?? 0) on"
            default:
                return nil
            }
        }
    }
}
