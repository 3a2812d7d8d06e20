/// The codes of ``SyncError``: why `item.evict` or `item.download` was refused. Stable (the raw
/// value is the wire string).
public enum SyncErrorCode: String, StableErrorCode {
    /// No sync engine is configured for the item's container (a single machine): no other device
    /// holds a copy to evict in favour of, or to download from.
    case noEngine = "sync.noEngine"
    /// A sync engine is configured but not connected now, does not share the item's container,
    /// or refused a request: nothing was changed.
    case engineUnavailable = "sync.engineUnavailable"
    /// Evicting needs a connected device that holds the current version of the item: none does
    /// (it is not uploaded yet, the other devices are away, or this copy is not current).
    case notHeldElsewhere = "sync.notHeldElsewhere"
    /// Only files are evicted: not folders, packages or links.
    case notAFile = "sync.notAFile"
}
