import CUbiquitySystem
import Glibc

/// A container's root directory as the server holds it: one `O_PATH | O_DIRECTORY | O_NOFOLLOW`
/// descriptor, opened when the container is registered (at start, on SIGHUP, or on first use if
/// it did not exist yet), and the base of every path a client names in it (``ItemLocation``).
///
/// Requests never open the root by path again: a root renamed away and replaced by a link to
/// somewhere else after it was held still leads to the directory that was registered.
public final class HeldRoot: Sendable {
    public let fd: Int32
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens `path` without following its final component; nil when it is missing or not a
    /// directory (a link included).
    static func open(_ path: String) -> HeldRoot? {
        let fd = Glibc.open(path, UBQ_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        return fd >= 0 ? HeldRoot(fd: fd, path: path) : nil
    }
}
