/// The codes of ``VersionError``: why a versions or document operation was refused. Stable (the raw value is the wire string).
public enum VersionErrorCode: String, StableErrorCode {
    /// `path` is not an absolute path inside a served container, has `.`/`..`/empty components,
    /// is too long, or names a container itself or a sync engine's or conflict copy's file.
    case invalidPath = "item.invalidPath"
    /// Nothing is at `path` (or a directory on the way is missing or a symbolic link).
    case notFound = "item.notFound"
    /// The peer lacks the right the operation needs on the item, as the kernel would judge it
    /// (mode bits, owner, group, POSIX ACL, search on every directory on the way): write for
    /// `document.lock`, read for `document.watch` and `versions.list`; also a symbolic link as the item.
    case forbidden = "item.forbidden"
    /// The file system refused a step (permissions, a full disk); nothing was half done.
    case fileSystem = "version.fileSystem"
    /// Another connection holds the item's coordinated-write lock.
    case locked = "document.locked"
    /// No such lock or watch on this connection.
    case unknownHandle = "document.unknown"
}
