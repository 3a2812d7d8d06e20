import CUbiquitySystem
import Glibc

extension Directory {
    /// Moves `name` to `target` in `other` in one step, never replacing anything there
    /// (`renameat2(RENAME_NOREPLACE)`: `EEXIST` when something is at `target`, a link included;
    /// `EXDEV` when the two are on different file systems, where ``copyTree(_:to:in:)`` is the way).
    /// A link at `name` is moved, never followed. Neither directory is `fsync`ed.
    public func move(_ name: [UInt8], to target: [UInt8], in other: Directory) throws(SystemCallError) {
        try System.call("renameat2", path: other.path(of: target)) {
            Self.withCString(name) { from in Self.withCString(target) { ubq_renameat_noreplace(fd, from, other.fd, $0) } }
        }
    }

    /// Copies `name` — a regular file, a symbolic link (as a link, never followed) or a directory
    /// with everything in it — to `target` in `other`, which must not exist. Modes are kept; every
    /// file and directory written is `fsync`ed, `other` last, so the copy is whole on disk when this
    /// returns. Anything else (a FIFO, a socket, a device) is refused (`EINVAL`), as is a tree
    /// deeper than ``maxDepth`` or wider than ``maxEntries`` per directory. On failure what was
    /// copied stays: the caller removes `target` (``removeTree(_:)``).
    @available(*, noasync, message: "a copy waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func copyTree(_ name: [UInt8], to target: [UInt8], in other: Directory) throws(SystemCallError) {
        System.noteWait("copyTree", path(of: name))
        try copyTree(name, to: target, in: other, depth: 0)
        try other.sync()
    }

    private func copyTree(_ name: [UInt8], to target: [UInt8], in other: Directory, depth: Int) throws(SystemCallError) {
        guard let info = try status(of: name) else { throw SystemCallError("fstatat", errno: ENOENT, path: path(of: name)) }
        let mode = UInt32(info.st_mode) & 0o7777
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            let source = try System.call("openat", path: path(of: name)) {
                Self.withCString(name) { openat(fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
            }
            defer { close(source) }
            _ = try other.createNew(target, copying: source, limit: Int.max, mode: mode)
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = try System.call("readlinkat", path: path(of: name)) {
                Self.withCString(name) { readlinkat(fd, $0, &buffer, buffer.count - 1) }
            }
            buffer[length] = 0
            try System.call("symlinkat", path: other.path(of: target)) {
                Self.withCString(target) { symlinkat(buffer, other.fd, $0) }
            }
        case S_IFDIR:
            guard depth < Self.maxDepth else { throw SystemCallError("openat", errno: ELOOP, path: path(of: name)) }
            let inner = try openDirectory(name)
            let entries = try inner.names()
            guard entries.count < Self.maxEntries else { throw SystemCallError("getdents", errno: E2BIG, path: inner.path) }
            try System.call("mkdirat", path: other.path(of: target)) { Self.withCString(target) { mkdirat(other.fd, $0, 0o700) } }
            let copy = try other.openDirectory(target)
            for entry in entries { try inner.copyTree(entry, to: entry, in: copy, depth: depth + 1) }
            // The mode last: a read-only directory is still written into while it is copied.
            try System.call("fchmod", path: copy.path) { fchmod(copy.fd, mode) }
            try copy.sync()
        default:
            throw SystemCallError("copy", errno: EINVAL, path: path(of: name))
        }
    }
}
