/// `query.start`'s `freshness`: how fresh the first answer must be (docs/protocol.md).
public enum WireFreshness: String, Sendable, Hashable, CaseIterable {
    /// Every change made before the query started (the default): after a restart the answer
    /// waits for the check of the saved index against the file system.
    case exact
    /// After a restart, at once from the saved index, marked `"verified":false`; what the check
    /// finds follows as updates, then `query.verified`.
    case saved
}
