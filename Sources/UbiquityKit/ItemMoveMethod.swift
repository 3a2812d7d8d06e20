/// How ``Document/moveIn(from:to:connection:)`` or ``Document/moveOut(to:lockTimeout:)`` moved an item.
public enum ItemMoveMethod: String, Sendable, Hashable {
    /// One rename: both places are on one file system.
    case renamed
    /// Copied across file systems, made durable, renamed into place, then removed at the source.
    case copied
}
