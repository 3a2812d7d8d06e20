public import UbiquityErrors
public import UbiquitySystem

/// Why a call into libsystemd, or a system call made for the systemd glue, failed.
///
/// The daemon logs these and mostly carries on: a lost `sd_notify` datagram must not stop it serving
/// queries. ``code`` is stable (``Code/rawValue`` is the documented string); ``description`` is the
/// sentence people read: `sd_notify failed: Connection refused (ECONNREFUSED)`.
public struct SystemdError: SystemCallWrapping, Sendable, CustomStringConvertible {
    /// A stable error code; its raw value is the documented string, e.g. `systemd.notUnixListener`.
    public enum Code: String, StableErrorCode {
        /// A libsystemd function or system call failed; ``SystemdError/systemCall`` says which and why.
        case systemCall = "systemd.systemCall"
        /// A passed file descriptor is not a listening `AF_UNIX` stream socket.
        case notUnixListener = "systemd.notUnixListener"
        /// Sockets were passed, but none carries the expected `FileDescriptorName=`.
        case noActivatedSocket = "systemd.noActivatedSocket"
    }

    public let code: Code
    /// The call that failed, when one did: the door's one description of it.
    public let systemCall: SystemCallError?
    /// What went wrong, without the call and errno (those are the system call's).
    public let message: String
    /// Where the error was raised (`#fileID`, `#line`), for logs.
    public let fileID: String
    public let line: Int

    init(_ code: Code, message: String, fileID: String = #fileID, line: Int = #line) {
        self.code = code
        systemCall = nil
        self.message = message
        self.fileID = fileID
        self.line = line
    }

    /// A failed call (libsystemd returns `-errno`, system calls set `errno`; both arrive as the
    /// positive number in the door's ``SystemCallError``).
    public init(_ failure: SystemCallError) {
        code = .systemCall
        systemCall = failure
        message = failure.message
        fileID = failure.fileID
        line = failure.line
    }

    /// The function that failed (`sd_notify`, `sd_listen_fds_with_names`, `fstat`, ...), when one did.
    public var call: String? { systemCall?.call }
    /// The positive `errno` the call reported, when a call failed.
    public var errno: Int32? { systemCall?.errno }

    public var description: String {
        systemCall?.description ?? code.rawValue + ": " + message
    }
}
