public import UbiquityStore

/// One segment imported into the cache: whose, which, and what it changed for clients (what a
/// `store.changed` event will carry), with the token of its row in the cache's change log.
public struct StoreImport: Sendable, Hashable {
    public let device: DeviceID
    public let sequence: UInt64
    public let result: ImportResult
    /// The change log's token after this import: a client that saw it asks `since` it.
    public let token: Int64
}
