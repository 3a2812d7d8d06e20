import CUbiquitySystem
import Glibc
import UbiquityIndex

/// The one door to system calls: retries `EINTR`, turns `errno` into a ``WatchError`` naming the call.
enum System {
    /// Runs `body` until it does not fail with `EINTR`; `-1` becomes a typed error naming `call`.
    ///
    /// - Parameters:
    ///   - call: The system call's name, for the error (`"openat"`).
    ///   - path: The path the call was about, for the error.
    /// - Returns: What `body` returned, never `-1`.
    /// - Throws: ``WatchError`` with the call, the path and `errno`.
    @inline(__always)
    @discardableResult
    static func call<Result: FixedWidthInteger>(
        _ call: String, path: @autoclosure () -> String? = nil,
        fileID: String = #fileID, line: Int = #line, _ body: () -> Result
    ) throws(WatchError) -> Result {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = Glibc.errno
            if error == EINTR { continue }
            throw WatchError.system(call, errno: error, path: path(), fileID: fileID, line: line)
        }
    }

    /// `strerror` plus the symbolic name: `No such file or directory (ENOENT)`.
    static func errnoText(_ error: Int32) -> String {
        let text = strerror(error).map { String(cString: $0) } ?? "error \(error)"
        guard let name = errnoNames[error] else { return text }
        return "\(text) (\(name))"
    }

    private static let errnoNames: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", ENOTDIR: "ENOTDIR",
        EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", ENOSPC: "ENOSPC",
        EROFS: "EROFS", ERANGE: "ERANGE", ENAMETOOLONG: "ENAMETOOLONG", ELOOP: "ELOOP",
        ENODATA: "ENODATA", EOPNOTSUPP: "EOPNOTSUPP", ESTALE: "ESTALE",
    ]

    /// `CLOCK_MONOTONIC` in nanoseconds: the reader thread's timers.
    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// `statx` without following a final symlink. `nil` when the entry does not exist (`ENOENT`,
    /// `ENOTDIR`: a component was replaced by a file).
    ///
    /// - Throws: ``WatchError`` for any other failure (`EACCES` on a parent, `EIO`, ...).
    static func stat(at directory: Int32, _ path: UnsafePointer<CChar>, flags: Int32 = UBQ_AT_SYMLINK_NOFOLLOW,
                     describing: @autoclosure () -> String) throws(WatchError) -> FileStat? {
        var raw = ubq_stat()
        do throws(WatchError) {
            try call("statx", path: describing()) { ubq_statx(directory, path, flags, UBQ_STATX_BASIC_AND_BIRTH, &raw) }
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
        guard var found = try stat(at: directory, name, describing: describing()) else { return nil }
        // Symlinks carry no user attributes on Linux; other kinds are not items that show tags.
        guard found.kind == .regular || found.kind == .directory else { return found }
        if deferringTags { found.tagsDeferred = true } else { found.tags = TagReader.tags(in: directory, named: name) }
        return found
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
