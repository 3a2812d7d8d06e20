/// Where a watched container root is and which directory the reader holds there, published for
/// callers on other threads (``FileWatcher/sync(timeout:)``) that must not use the reader's
/// descriptor: they open `path` themselves and check `device` and `inode` before writing.
struct RootLocation: Sendable, Hashable {
    var path: String
    var device: UInt64
    var inode: UInt64
}
