public import UbiquityStore
import UbiquityErrors

/// How far this device has imported another device's log, and why it stopped there.
public struct DeviceSyncState: Sendable, Hashable {
    public enum Condition: Sendable, Hashable {
        /// Every segment present has been imported; the next one has not arrived.
        case current
        /// The next segment is there but cannot be imported: damaged, truncated, oversized, a
        /// link, from a future format, or not fitting the schema. The device's import waits for
        /// sync to replace it; other devices go on. `code` is the ``StoreErrorCode``'s raw value.
        case degraded(sequence: UInt64, code: String, reason: String)
        /// The next segment was written with a newer schema: this device stops there until the
        /// app upgrades its schema, and keeps writing its own.
        case needsUpgrade(sequence: UInt64, schemaVersion: UInt32)
    }

    public let device: DeviceID
    /// The last segment imported (0: none).
    public var imported: UInt64
    public var condition: Condition
}
