public import UbiquityStore

/// A snapshot in the store's folder that could not be used: whose, which, the code a segment
/// with the same problem would have (``StoreErrorCode``'s raw value) and why, in words. Tried
/// once per name while the store is open; a device that needs it waits (``DeviceSyncState``).
public struct SnapshotProblem: Error, Sendable, Hashable {
    public let device: DeviceID
    public let sequence: UInt64
    public let code: String
    public let reason: String
}
