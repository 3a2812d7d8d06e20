import CUbiquitySystem
import Glibc
public import UbiquityErrors

/// A system call that failed: which call, the `errno` it left, and the path it was about.
///
/// The one description of a failed call in this package (the watcher's, the systemd glue's, the
/// durable writes'): ``description`` is the sentence people read, `renameat failed for
/// /srv/c/.ubiquity-kv/a.json: Permission denied (EACCES)`; ``message`` is `strerror` alone.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; its raw value is the documented string (``SystemCallErrorCode``).
    public typealias Code = SystemCallErrorCode

    public var code: Code { .systemCall }
    /// The call that failed (`openat`, `fsync`, `sd_notify`, ...).
    public let call: String
    /// The positive `errno`.
    public let errno: Int32
    /// The path the call was about, when there is one.
    public let path: String?
    /// Where the error was raised (`#fileID`, `#line`), for logs; not part of equality.
    public let fileID: String
    public let line: Int

    public init(_ call: String, errno: Int32, path: String? = nil, fileID: String = #fileID, line: Int = #line) {
        self.call = call
        self.errno = errno
        self.path = path
        self.fileID = fileID
        self.line = line
    }

    /// `strerror(errno)`: `Permission denied`.
    public var message: String { strerror(errno).map { String(cString: $0) } ?? "error \(errno)" }

    /// The symbolic name: `EACCES`; nil for a number the C library does not know.
    public var errnoName: String? { ubq_errno_name(errno).map { String(cString: $0) } }

    /// A symbolic link (or something that is not a directory) stood where `O_NOFOLLOW` or
    /// `O_DIRECTORY` refused it: `ELOOP` or `ENOTDIR`.
    public var isLinkOrNotDirectory: Bool { errno == ELOOP || errno == ENOTDIR }

    public var description: String {
        "\(call) failed" + (path.map { " for \($0)" } ?? "") + ": " + message + (errnoName.map { " (\($0))" } ?? "")
    }

    public static func == (a: SystemCallError, b: SystemCallError) -> Bool {
        a.call == b.call && a.errno == b.errno && a.path == b.path
    }
}
