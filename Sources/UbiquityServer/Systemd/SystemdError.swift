import Glibc

/// Why a call into libsystemd, or a system call made for the systemd glue, failed.
///
/// The daemon logs these and mostly carries on: a lost `sd_notify` datagram must not stop it serving
/// queries. ``code`` is stable (``Code/rawValue`` is the documented string); ``description`` is the
/// sentence people read: `sd_notify failed: Connection refused (errno 111)`.
public struct SystemdError: Error, Sendable, CustomStringConvertible {
    /// A stable error code. A struct around a private enum so that codes can be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case systemCall = "systemd.systemCall"
            case notUnixListener = "systemd.notUnixListener"
            case noActivatedSocket = "systemd.noActivatedSocket"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// A libsystemd function or system call failed; ``SystemdError/call`` and
        /// ``SystemdError/errno`` say which and why.
        public static let systemCall = Code(.systemCall)
        /// A passed file descriptor is not a listening `AF_UNIX` stream socket.
        public static let notUnixListener = Code(.notUnixListener)
        /// Sockets were passed, but none carries the expected `FileDescriptorName=`.
        public static let noActivatedSocket = Code(.noActivatedSocket)

        /// The documented string, e.g. `systemd.notUnixListener`.
        public var rawValue: String { kind.rawValue }
        public var description: String { kind.rawValue }
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
