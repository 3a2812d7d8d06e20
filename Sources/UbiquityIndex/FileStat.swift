/// What the crawler and watcher read for one directory entry: one `statx`, and the entry's tags
/// (the `user.xdg.tags` extended attribute) read in the same place, relative to the same directory
/// descriptor. The index does no I/O: everything it knows about an entry arrives here.
///
/// A crawl of watched directories leaves the tags out (``tagsDeferred``): the watcher's tag pass
/// reads them afterwards and sends them as ``FileSystemChange/tags(_:_:directoryInode:_:)``.
///
/// Times are nanoseconds since 1970 so the index stores no Foundation `Date`.
public struct FileStat: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable {
        case regular, directory, symlink, other
    }

    // Declaration order is memory layout: 8-byte fields first, `kind` last, so the struct is
    // 64 bytes instead of 72. The index keeps statuses in 40 bytes each (``StatColumn``).
    public var size: Int64
    /// Content modification time (`mtime`).
    public var modified: Int64
    /// Birth time when the file system reports one, else the status change time.
    public var created: Int64
    /// Status change time (`ctime`): moves on chmod, chown, xattr and link changes.
    public var changed: Int64
    public var inode: UInt64
    /// Finder-style tags, in the order stored; `[]` when none (and always for symlinks, which
    /// carry no user attributes on Linux).
    public var tags: [String]
    /// Permission bits only (`0o7777` at most; the kind says the type): all the index keeps.
    public var mode: UInt32
    public var uid: UInt32
    public var gid: UInt32
    public var kind: Kind
    /// The tags were not read with this status (a crawl): the index keeps the tags it has for
    /// the entry until the tag pass tells. Never stored in the index. Fits in the padding after
    /// `kind`: the struct stays 64 bytes.
    public var tagsDeferred: Bool
    /// The entry is an evicted item's placeholder (``EvictedPlaceholderName``): the index sets it
    /// when it files a placeholder file under the item's own name; its size and dates are the
    /// item's last known ones. Fits in the padding too.
    public var evicted: Bool = false

    public init(
        kind: Kind, size: Int64 = 0, modified: Int64 = 0, created: Int64 = 0, changed: Int64 = 0,
        mode: UInt32 = 0o644, uid: UInt32 = 0, gid: UInt32 = 0, inode: UInt64 = 0,
        tags: [String] = [], tagsDeferred: Bool = false
    ) {
        self.kind = kind
        self.size = size
        self.modified = modified
        self.created = created
        self.changed = changed
        self.mode = mode
        self.uid = uid
        self.gid = gid
        self.inode = inode
        self.tags = tags
        self.tagsDeferred = tagsDeferred
    }
}
