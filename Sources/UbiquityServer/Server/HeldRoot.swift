import CUbiquitySystem
import Glibc
import UbiquitySystem

/// A container's root directory as the server holds it: one `O_PATH | O_DIRECTORY | O_NOFOLLOW`
/// descriptor, opened when the container is registered (at start and on every reload, or on
/// first use if it did not exist then), and the base of every path a client names in it
/// (``ItemLocation``) and of the key-value store's folder.
///
/// Requests never open the root by path: a root renamed away and replaced after it was held
/// still leads to the directory that was registered, until the next reload opens the path again
/// (a link there is refused). The watcher holds its own descriptor of the root and checks it by
/// device and inode on every event about it.
public struct HeldRoot: Sendable {
    /// Closed with the last copy of the root.
    let descriptor: OwnedDescriptor
    public var fd: Int32 { descriptor.fd }
    public var path: String { descriptor.path }

    /// Opens `path` without following its final component; nil when it is missing or not a
    /// directory (a link included).
    static func open(_ path: String) -> HeldRoot? {
        let fd = Glibc.open(path, UBQ_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        return fd >= 0 ? HeldRoot(descriptor: OwnedDescriptor(adopting: fd, path: path)) : nil
    }
}
