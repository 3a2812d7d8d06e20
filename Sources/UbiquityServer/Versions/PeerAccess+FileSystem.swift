import CUbiquitySystem
import Glibc
public import UbiquitySystem

/// The file-system half of ``PeerAccess``: a walk from a held container root to an item, judging
/// the peer's search right on the root and every directory on the way, then the right it wants
/// on the item.
///
/// Every step is one `openat(O_PATH | O_NOFOLLOW)` relative to the directory before (a link is
/// never followed, and `O_PATH` needs no read right of the daemon's), then `statx` and the ACL of
/// that very descriptor, so what is judged is what was opened, whatever is renamed meanwhile.
/// The ACL is read through `/proc/self/fd/N` (`ubq_getxattr_opath`): the kernel refuses
/// `fgetxattr` on `O_PATH` descriptors, and reading it by name could reach another inode. Without
/// `/proc` the read fails and the peer is refused (`fileSystem`): fail closed.
///
/// Write is refused on a read-only mount (`fstatvfs` `ST_RDONLY` of the item, or of its directory
/// for a missing item), for root too, as `access(2)` refuses it with `EROFS`. Not judged: LSMs,
/// immutable flags, id-mapped mounts.
extension PeerAccess {
    /// Whether `peer` may use `right` on `path` below the container root `root` (an `O_PATH`
    /// descriptor is enough; not closed). Search is needed on `root` and every directory on the
    /// way. The last component must not be a symbolic link. A missing last component may be
    /// written when its directory may be written (search on it was already needed); for read or
    /// search it is ``PeerAccessDenial/Reason/notFound``, reported only past directories the peer
    /// may search.
    public static func check(_ right: Right, _ path: RelativePath, beneath root: Int32,
                             peer: PeerCredentials) -> Result<Void, PeerAccessDenial> {
        // The directory reached so far (at the end: the item itself), what it is, and its path.
        var current = root
        defer { if current != root { close(current) } }
        var currentEntry: Entry
        var currentName: [UInt8] = []
        func refuse(_ name: [UInt8], _ reason: PeerAccessDenial.Reason) -> Result<Void, PeerAccessDenial> {
            .failure(PeerAccessDenial(uid: peer.uid, component: name, reason: reason))
        }
        // The root's listing is not shown: the peer may not be able to search the directories above it.
        func listing(_ entry: Entry, _ name: [UInt8]) -> PeerAccessDenial.Listing? {
            name.isEmpty ? nil : .init(mode: entry.mode & 0o7777, owner: entry.uid, group: entry.gid, hasACL: entry.acl != nil)
        }

        switch examine(root, or: { PeerAccessDenial(uid: peer.uid, component: [], reason: $0) }) {
        case .failure(let denial): return .failure(denial)
        case .success(let entry): currentEntry = entry
        }
        for (index, component) in path.components.enumerated() {
            guard allows(.search, currentEntry, peer: peer) else {
                return refuse(currentName, .notPermitted(.search, listing(currentEntry, currentName)))
            }
            let name = currentName.isEmpty ? component : currentName + [PathBytes.separator] + component
            let last = index == path.components.count - 1
            let flags = UBQ_O_PATH | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY)
            let fd = System.retrying { Beneath.withCString(component) { openat(current, $0, flags) } }
            guard fd >= 0 else {
                let code = errno
                // Creating it needs write and search on its directory (`may_create`); search passed above.
                if code == ENOENT && last && right == .write {
                    if isReadOnly(current) { return refuse(name, .readOnlyFileSystem) }
                    return allows(.write, currentEntry, peer: peer) ? .success(())
                        : refuse(name, .mayNotCreate(listing(currentEntry, currentName)))
                }
                switch code {
                case ENOENT: return refuse(name, .notFound)
                case ELOOP, ENOTDIR: return refuse(name, .notADirectory)
                default: return refuse(name, .fileSystem(errno: code))
                }
            }
            if current != root { close(current) }
            current = fd
            switch examine(fd, or: { PeerAccessDenial(uid: peer.uid, component: name, reason: $0) }) {
            case .failure(let denial): return .failure(denial)
            case .success(let entry): currentEntry = entry
            }
            currentName = name
        }
        let item = currentEntry
        if item.mode & 0o170000 == 0o120000 { return refuse(currentName, .symbolicLink) }
        if right == .write && (item.isDirectory || item.mode & 0o170000 == 0o100000) && isReadOnly(current) {
            return refuse(currentName, .readOnlyFileSystem)
        }
        return allows(right, item, peer: peer) ? .success(()) : refuse(currentName, .notPermitted(right, listing(item, currentName)))
    }

    /// Whether `peer` has every one of `rights` on the directory (or file) open at `fd`, judged
    /// from its mode, owner, group and ACL: for a walk that already holds the descriptor (the
    /// directories of a package ``VersionCatalog`` lists). False when it cannot be examined.
    static func allows(_ rights: [Right], at fd: Int32, peer: PeerCredentials) -> Bool {
        guard case .success(let entry) = examine(fd, or: { PeerAccessDenial(uid: peer.uid, component: [], reason: $0) }) else {
            return false
        }
        return rights.allSatisfy { allows($0, entry, peer: peer) }
    }

    /// The mode, owner, group and ACL of the inode `fd` names. A link's ACL is not read (the
    /// caller refuses links anyway, and `/proc/self/fd/N` of a link would not name the link).
    private static func examine(_ fd: Int32, or denial: (PeerAccessDenial.Reason) -> PeerAccessDenial) -> Result<Entry, PeerAccessDenial> {
        var status = ubq_stat()
        guard System.retrying({ ubq_statx(fd, "", UBQ_AT_EMPTY_PATH | UBQ_AT_SYMLINK_NOFOLLOW, UBQ_STATX_BASIC_AND_BIRTH, &status) }) == 0 else {
            return .failure(denial(.fileSystem(errno: errno)))
        }
        var entry = Entry(mode: status.mode, uid: status.uid, gid: status.gid)
        if status.mode & 0o170000 == 0o120000 { return .success(entry) }
        switch accessACL(fd) {
        case .acl(let acl): entry.acl = acl
        case .refused(let reason): return .failure(denial(reason))
        }
        return .success(entry)
    }

    /// The access ACL of `fd`'s inode (nil when it has none or its file system has no ACLs), or why not.
    private enum ACLRead {
        case acl(PosixACL?)
        case refused(PeerAccessDenial.Reason)
    }

    private static func accessACL(_ fd: Int32) -> ACLRead {
        // 1 KiB holds 127 entries; a longer ACL is asked for its size once, then read again.
        var capacity = 1024
        for _ in 0..<3 {
            var bytes = [UInt8](repeating: 0, count: capacity)
            let count = System.retrying { bytes.withUnsafeMutableBytes { ubq_getxattr_opath(fd, PosixACL.attributeName, $0.baseAddress, $0.count) } }
            if count >= 0 {
                do { return .acl(try PosixACL(attribute: bytes.prefix(count))) }
                catch { return .refused(.malformedACL(error)) }
            }
            switch errno {
            case ENODATA, EOPNOTSUPP: return .acl(nil)
            case ERANGE:
                let size = System.retrying { ubq_getxattr_opath(fd, PosixACL.attributeName, nil, 0) }
                guard size >= 0 else { return .refused(.fileSystem(errno: errno)) }
                guard size <= PosixACL.maxBytes else { return .refused(.malformedACL(PosixACLError(.tooLong(bytes: size)))) }
                capacity = max(size, 1)
            case let code:
                return .refused(.fileSystem(errno: code))
            }
        }
        return .refused(.fileSystem(errno: ERANGE))    // it kept growing between the calls
    }

    /// Whether `fd` is on a read-only mount; a failed `fstatvfs` counts as writable (then the
    /// write itself will fail, as it would have).
    private static func isReadOnly(_ fd: Int32) -> Bool {
        var info = statvfs()
        return fstatvfs(fd, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
    }
}
