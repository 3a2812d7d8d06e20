import Glibc

/// A small file this process creates and holds under an exclusive `flock` for as long as it
/// matters — a record of work under way that another process must leave alone while its writer
/// lives, and may act on once the writer is gone (a crash releases the lock with the process).
public struct LockedFile: Sendable {
    /// The descriptor, open for writing, holding the lock; closed (and so unlocked) with the last copy.
    public let descriptor: OwnedDescriptor
    public var fd: Int32 { descriptor.fd }
    /// For messages only.
    public var path: String { descriptor.path }

    /// Creates `name` in `directory` (nothing may be there: `EEXIST`; never through a link) and
    /// locks it before anything is written, so that no other process ever holds it unlocked with
    /// content in it.
    public static func create(_ name: [UInt8], in directory: Directory, mode: UInt32 = 0o600) throws(SystemCallError) -> LockedFile {
        let path = directory.path(of: name)
        let fd = try System.call("openat", path: path) {
            Directory.withCString(name) { openat(directory.fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode) }
        }
        let file = LockedFile(descriptor: OwnedDescriptor(adopting: fd, path: path))
        try System.call("flock", path: path) { flock(fd, LOCK_EX | LOCK_NB) }
        return file
    }

    /// Replaces the whole content with `bytes` in place (the inode, and so the lock, stays) and
    /// `fsync`s it.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func write(_ bytes: [UInt8]) throws(SystemCallError) {
        System.noteWait("fsync", path)
        try System.call("ftruncate", path: path) { ftruncate(fd, 0) }
        try System.call("lseek", path: path) { lseek(fd, 0, SEEK_SET) }
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemCallError) in try System.writeAll(buffer, to: fd, path: path) }
        }.get()
        try System.call("fsync", path: path) { fsync(fd) }
    }

    /// Whether a live process holds `name` in `directory` locked (nil: it cannot be opened).
    public static func isHeld(_ name: [UInt8], in directory: Directory) -> Bool? {
        let fd = Directory.withCString(name) { openat(directory.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return false }
        return errno == EWOULDBLOCK ? true : nil
    }
}
