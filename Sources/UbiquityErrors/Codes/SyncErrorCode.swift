/// The codes of ``SyncError``: why `item.evict` or `item.download` was refused. Stable (the raw
/// value is the wire string).
public enum SyncErrorCode: String, StableErrorCode {
    /// No sync engine is configured for the item's container (a single machine): no other device
    /// holds a copy to evict in favour of, or to download from.
    case noEngine = "sync.noEngine"
}
