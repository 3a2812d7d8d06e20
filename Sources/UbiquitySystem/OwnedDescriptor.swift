import Glibc

/// A descriptor this process owns: closed when the last reference to it goes (a held container
/// root, a locked record file). With the path it was opened at, for messages.
public final class OwnedDescriptor: Sendable {
    public let fd: Int32
    public let path: String

    /// Takes `fd` over.
    public init(adopting fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }
}
