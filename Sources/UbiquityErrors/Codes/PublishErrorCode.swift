/// The codes of ``PublishError``: why `item.publish`, `item.unpublish` or `item.published` was
/// refused. Stable (the raw value is the wire string).
public enum PublishErrorCode: String, StableErrorCode {
    /// The HTTP listener is not configured (`[publish] listen`), so nothing can be published.
    case disabled = "publish.disabled"
    /// No snapshot of this user has that token (never published, revoked, expired, or another user's).
    case unknownToken = "publish.unknownToken"
    /// The item is not a regular file (a directory, a package, a FIFO, a device).
    case notAFile = "publish.notAFile"
    /// The expiry is in the past, zero, or later than `max_expiry_s` allows.
    case invalidExpiry = "publish.invalidExpiry"
    /// The user already holds `max_items_per_peer` snapshots, or the daemon its global maximum.
    case tooMany = "publish.tooMany"
    /// The snapshot would take the user past `max_bytes_per_peer`.
    case tooLarge = "publish.tooLarge"
    /// The daemon could not write the snapshot or its index in its state directory.
    case fileSystem = "publish.fileSystem"
}
