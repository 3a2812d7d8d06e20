import Glibc

/// A Unix socket that is bound and listening but never accepts: the kernel completes every
/// connection, and nobody ever reads or answers — what a client sees of a daemon that was
/// socket-activated and then failed to start.
public final class SilentListener: Sendable {
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        fd = try UnixSocket.bound(to: path, type: SOCK_STREAM, listening: true)
    }

    deinit { close(fd) }
}
