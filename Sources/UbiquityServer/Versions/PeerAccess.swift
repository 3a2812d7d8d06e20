/// Whether a peer may read, write or search an entry, decided the way the kernel decides it for a
/// process with the peer's uid and groups (`generic_permission` and `acl_permission_check` in
/// fs/namei.c, `posix_acl_permission` in fs/posix_acl.c).
///
/// The daemon runs as an unprivileged service user and cannot take on the peer's credentials, so
/// it cannot simply try; it decides from the entry's mode, owner, group and access ACL instead.
/// Out of scope: LSMs (AppArmor, SELinux), immutable and append-only flags, id-mapped mounts.
/// Pure: the file-system walk is in `PeerAccess+FileSystem.swift`.
public enum PeerAccess {
    /// What the peer wants to do with an entry.
    public enum Right: Sendable, Hashable, CustomStringConvertible {
        case read
        case write
        /// Pass through a directory (`x` on a directory; `x` on anything else).
        case search

        /// `MAY_READ`, `MAY_WRITE`, `MAY_EXEC`: the `rwx` bit.
        var bit: UInt32 {
            switch self {
            case .read: 4
            case .write: 2
            case .search: 1
            }
        }

        public var description: String {
            switch self {
            case .read: "read"
            case .write: "write"
            case .search: "search"
            }
        }
    }

    /// What the kernel decides from: an entry's `st_mode` (with its type bits), owner, group and ACL.
    public struct Entry: Sendable, Hashable {
        public var mode: UInt32
        public var uid: UInt32
        public var gid: UInt32
        /// The access ACL, when the entry has one.
        public var acl: PosixACL?

        public init(mode: UInt32, uid: UInt32, gid: UInt32, acl: PosixACL? = nil) {
            self.mode = mode
            self.uid = uid
            self.gid = gid
            self.acl = acl
        }

        /// `S_ISDIR`.
        public var isDirectory: Bool { mode & 0o170000 == 0o040000 }
    }

    /// Whether `peer` has `right` on `entry`.
    public static func allows(_ right: Right, _ entry: Entry, peer: PeerCredentials) -> Bool {
        // generic_permission: root's CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH pass everything on a
        // directory, and reading or writing anything else; executing only with some x bit set.
        if peer.isRoot && (entry.isDirectory || right != .search || entry.mode & 0o111 != 0) { return true }
        let wanted = right.bit
        // The owner is judged by the owner bits alone, whatever the ACL says of others.
        if entry.uid == peer.uid { return (entry.mode >> 6) & wanted == wanted }
        // With an ACL the mode's group bits are its mask; the kernel skips the ACL when they are
        // all clear (mask::---), so named users and groups then get the classic answer below.
        if let acl = entry.acl, entry.mode & 0o070 != 0 {
            return aclAllows(wanted, acl, owner: entry.uid, owningGroup: entry.gid, peer: peer)
        }
        let classBits = peer.groups.contains(entry.gid) ? entry.mode >> 3 : entry.mode
        return classBits & wanted == wanted
    }

    /// `posix_acl_permission`: the owner entry, then named users (masked), then the group class —
    /// any matching group entry that grants everything wanted grants it, masked; a matching group
    /// and none granting denies — then other.
    private static func aclAllows(_ wanted: UInt32, _ acl: PosixACL, owner: UInt32, owningGroup: UInt32,
                                  peer: PeerCredentials) -> Bool {
        let mask = acl.entries.first { $0.tag == .mask }.map { UInt32($0.permissions) } ?? 7
        var inGroupClass = false
        for entry in acl.entries {
            let permissions = UInt32(entry.permissions)
            switch entry.tag {
            case .owner where owner == peer.uid:
                return permissions & wanted == wanted
            case .user where entry.id == peer.uid:
                return permissions & mask & wanted == wanted
            case .owningGroup where peer.groups.contains(owningGroup),
                 .group where peer.groups.contains(entry.id):
                inGroupClass = true
                if permissions & wanted == wanted { return permissions & mask & wanted == wanted }
            case .other:
                return !inGroupClass && permissions & wanted == wanted
            default:
                continue
            }
        }
        return false    // unreachable for a valid ACL, which ends with other
    }
}
