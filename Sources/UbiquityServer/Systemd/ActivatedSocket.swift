import CSystemd
import Glibc

/// One listening socket that the service manager passed to the daemon (`LISTEN_FDS`).
public struct ActivatedSocket: Sendable, Hashable, CustomStringConvertible {
    /// The file descriptor, `SD_LISTEN_FDS_START` (3) or above. Owned by the daemon from now on.
    public let fileDescriptor: Int32
    /// The socket unit's `FileDescriptorName=` (`ubiquityd`), or `unknown` when it set none.
    public let name: String

    public var description: String { "fd \(fileDescriptor) (\(name))" }
}
