import Glibc
public import UbiquityErrors

/// Why a call into libsystemd, or a system call made for the systemd glue, failed.
///
/// The daemon logs these and mostly carries on: a lost `sd_notify` datagram must not stop it serving
/// queries. ``code`` is stable (``Code/rawValue`` is the documented string); ``description`` is the
/// sentence people read: `sd_notify failed: Connection refused (errno 111)`.
public struct SystemdError: Error, Sendable, CustomStringConvertible {
    /// A stable error code; its raw value is the documented string, e.g. `systemd.notUnixListener`.
    public enum Code: String, StableErrorCode {
        /// A libsystemd function or system call failed; ``SystemdError/call`` and
        /// ``SystemdError/errno`` say which and why.
        case systemCall = "systemd.systemCall"
        /// A passed file descriptor is not a listening `AF_UNIX` stream socket.
        case notUnixListener = "systemd.notUnixListener"
        /// Sockets were passed, but none carries the expected `FileDescriptorName=`.
        case noActivatedSocket = "systemd.noActivatedSocket"
    }

    public let code: Code
    /// The function that failed (`sd_notify`, `sd_listen_fds_with_names`, `fstat`, ...), when one did.
    public let call: String?
    /// The positive `errno` the call reported, when a call failed.
    public let errno: Int32?
    /// What went wrong, without the call and errno (those are fields of their own).
    public let message: String
    /// Where the error was raised (`#fileID`, `#line`), for logs.
    public let fileID: String
    public let line: Int

    init(
        _ code: Code, call: String? = nil, errno: Int32? = nil, message: String,
        fileID: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.call = call
        self.errno = errno
        self.message = message
        self.fileID = fileID
        self.line = line
    }

    public var description: String {
        (call.map { "\($0) failed" } ?? code.rawValue) + ": " + message
    }

    /// The error for a failed call. libsystemd returns `-errno`; system calls set `errno`: both
    /// arrive here as the positive number.
    static func call(_ call: String, errno: Int32, fileID: String = #fileID, line: Int = #line) -> SystemdError {
        let text = strerror(errno).map { String(cString: $0) } ?? "unknown error"
        return SystemdError(.systemCall, call: call, errno: errno, message: "\(text) (errno \(errno))",
                            fileID: fileID, line: line)
    }

    /// Runs a libsystemd function that returns `-errno` on failure and its result otherwise.
    @discardableResult
    static func check(_ call: String, fileID: String = #fileID, line: Int = #line,
                      _ body: () -> Int32) throws(SystemdError) -> Int32 {
        let result = body()
        if result < 0 { throw SystemdError.call(call, errno: -result, fileID: fileID, line: line) }
        return result
    }
}
