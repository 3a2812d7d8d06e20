import CUbiquitySystem
import Glibc
import UbiquityIndex
import UbiquitySystem

/// The watcher's calls through the door: an entry's status and tags, a descriptor's identity.
extension System {
    /// `statx` without following a final symlink. `nil` when the entry does not exist (`ENOENT`,
    /// `ENOTDIR`: a component was replaced by a file).
    ///
    /// - Throws: ``WatchError`` for any other failure (`EACCES` on a parent, `EIO`, ...).
    static func stat(at directory: Int32, _ path: UnsafePointer<CChar>, flags: Int32 = UBQ_AT_SYMLINK_NOFOLLOW,
                     describing: @autoclosure () -> String) throws(WatchError) -> FileStat? {
        var raw = ubq_stat()
        do throws(WatchError) {
            try call("statx", path: describing(), as: WatchError.self) { ubq_statx(directory, path, flags, UBQ_STATX_BASIC_AND_BIRTH, &raw) }
        } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return nil }
            throw error
        }
        return FileStat(raw)
    }

    /// An entry's status and tags, both relative to the directory open at `directory` and never
    /// through a final symlink: what the watcher and the crawler report for every entry. `nil`
    /// when the entry does not exist.
    ///
    /// - Parameter deferringTags: leave the tags to the tag pass (``FileStat/tagsDeferred``): a
    ///   crawl of a watched directory, where `getxattrat` was a quarter of the crawl's time.
    static func entry(at directory: Int32, _ name: UnsafePointer<CChar>, deferringTags: Bool = false,
                      describing: @autoclosure () -> String) throws(WatchError) -> FileStat? {
        guard let found = try stat(at: directory, name, describing: describing()) else { return nil }
        return entry(found, at: directory, name, deferringTags: deferringTags)
    }

    /// `found`, the status of `name` in `directory`, with its tags read (or deferred): the second
    /// half of ``entry(at:_:deferringTags:describing:)``, for a status already taken (a crawl's
    /// ``DirectoryBatch``).
    static func entry(_ found: FileStat, at directory: Int32, _ name: UnsafePointer<CChar>, deferringTags: Bool) -> FileStat {
        // Symlinks carry no user attributes on Linux; other kinds are not items that show tags.
        guard found.kind == .regular || found.kind == .directory else { return found }
        var tagged = found
        if deferringTags { tagged.tagsDeferred = true } else { tagged.tags = TagReader.tags(in: directory, named: name) }
        return tagged
    }

    /// The device and inode of the file open at `fd`.
    static func identity(of fd: Int32) -> (device: UInt64, inode: UInt64)? {
        var raw = ubq_stat()
        guard ubq_statx(fd, "", UBQ_AT_EMPTY_PATH, UBQ_STATX_BASIC_AND_BIRTH, &raw) == 0 else { return nil }
        return (raw.device, raw.inode)
    }

    /// `root/a/b` for components `[a, b]`; `root` for `[]`.
    static func join(_ root: String, _ components: [String]) -> String {
        if components.isEmpty { return root }
        let base = root == "/" ? "" : root
        return base + "/" + components.joined(separator: "/")
    }
}

extension FileStat {
    /// The index's view of one `statx`: birth time when reported, else the status change time.
    init(_ raw: ubq_stat) {
        let kind: Kind
        switch raw.mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): kind = .regular
        case UInt32(S_IFDIR): kind = .directory
        case UInt32(S_IFLNK): kind = .symlink
        default: kind = .other
        }
        self.init(
            kind: kind, size: Int64(bitPattern: raw.size), modified: raw.modified_ns,
            created: raw.has_birth_time != 0 ? raw.birth_ns : raw.changed_ns, changed: raw.changed_ns,
            mode: raw.mode & 0o7777, uid: raw.uid, gid: raw.gid, inode: raw.inode)
    }
}
