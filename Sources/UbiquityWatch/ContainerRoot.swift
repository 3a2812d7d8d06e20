import CUbiquitySystem
import Glibc
import UbiquitySystem

/// A container's root directory as the watcher holds it: a descriptor opened without following a
/// final symlink, and the directory's device and inode.
///
/// Everything below the root — crawls, stats, tags, sync cookies — is reached relative to this
/// descriptor, never by path, so a root renamed away and replaced (by a symlink to a directory
/// the owner may not read, say) is never followed: the path is only used to find the directory
/// again, and ``isStill(at:)`` tells whether the path still leads to the directory held.
/// Directories above the root are the configuration's and are followed as usual.
struct ContainerRoot: Sendable, Hashable {
    /// An `O_PATH | O_DIRECTORY` descriptor: usable as the base of `*at` calls and for inotify
    /// (through `/proc/self/fd`), cheap to hold, readable only through a fresh `openat(".")`.
    let fd: Int32
    let device: UInt64
    let inode: UInt64

    /// Why a root could not be held.
    enum Refusal: Error, Equatable {
        /// Nothing there (`ENOENT`, or a component above is not a directory): the container is
        /// unavailable until the directory appears.
        case missing
        /// Something is there but it is not a directory the watcher may use; the text says what.
        case refused(String)
    }

    /// Opens the root at `path` (absolute) without following its final component.
    static func open(_ path: String) -> Result<ContainerRoot, Refusal> {
        let fd = Glibc.open(path, UBQ_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let error = Glibc.errno
            if error == ENOENT { return .failure(.missing) }
            if error == ENOTDIR || error == ELOOP {
                // O_DIRECTORY | O_NOFOLLOW answers ENOTDIR for a symlink too: say which it is.
                var raw = ubq_stat()
                if ubq_statx(AT_FDCWD, path, UBQ_AT_SYMLINK_NOFOLLOW, UBQ_STATX_BASIC_AND_BIRTH, &raw) == 0 {
                    if raw.mode & UInt32(S_IFMT) == UInt32(S_IFLNK) {
                        return .failure(.refused("\(path) is a symbolic link; a container root is never followed through one"))
                    }
                    return .failure(.refused("\(path) is not a directory"))
                }
                return .failure(.missing)       // a component above it is not a directory
            }
            return .failure(.refused("\(path): \(System.errnoText(error))"))
        }
        guard let identity = System.identity(of: fd) else {
            let text = System.errnoText(Glibc.errno)
            Glibc.close(fd)
            return .failure(.refused("\(path): statx: \(text)"))
        }
        return .success(ContainerRoot(fd: fd, device: identity.device, inode: identity.inode))
    }

    /// Whether `path` still names this directory (not a symlink, not another directory).
    func isStill(at path: String) -> Bool {
        var raw = ubq_stat()
        guard ubq_statx(AT_FDCWD, path, UBQ_AT_SYMLINK_NOFOLLOW, UBQ_STATX_BASIC_AND_BIRTH, &raw) == 0 else { return false }
        return raw.mode & UInt32(S_IFMT) == UInt32(S_IFDIR) && raw.device == device && raw.inode == inode
    }

    /// A fresh readable descriptor of the root (its own file offset, for `fdopendir`).
    func openForReading() throws(WatchError) -> Int32 {
        try System.call("openat", path: ".", as: WatchError.self) { openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    func close() { _ = Glibc.close(fd) }
}
