public import UbiquityStore

/// A local transaction, acknowledged: applied to the cache and written as this device's
/// segment `sequence`, `fsync`ed (file and folder).
public struct StoreCommit: Sendable, Hashable {
    public let sequence: UInt64
    public let result: ImportResult
    public let token: Int64
}
