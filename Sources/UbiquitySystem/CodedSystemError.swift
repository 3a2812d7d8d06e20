import UbiquityErrors

/// The error of a module that makes system calls through the door (the watcher, the systemd glue):
/// either a failed call, carried as the door's ``SystemCallError`` so it is described one way, or a
/// refusal of the module's own with a stable code and a sentence.
///
/// Each module declares its codes once and names its error as this type with them:
///
/// ```swift
/// public typealias WatchError = CodedSystemError<WatchErrorCode>
/// throw WatchError(.invalidPath, path: root, message: "a container root must be an absolute path")
/// let fd = try System.call("inotify_init1", as: WatchError.self) { inotify_init1(flags) }
/// ```
///
/// ``description`` is the sentence people read: the call's own (`inotify_add_watch failed for
/// /srv/c/Documents: No space left on device (ENOSPC)`) or `code for path: message`.
public struct CodedSystemError<ErrorCode: SystemErrorCode>: SystemCallWrapping, Sendable, CustomStringConvertible {
    /// The area's code enum, so call sites read `WatchError.Code.stopped`.
    public typealias Code = ErrorCode

    /// Stable: its raw value is the documented string, e.g. `watch.budgetExhausted`.
    public let code: Code
    /// The system call that failed, when one did: the door's one description of it.
    public let systemCall: SystemCallError?
    /// The path the operation was about, when there is one.
    public let path: String?
    /// What went wrong, without the call and path (for a failed call: `strerror` and the errno's
    /// name, `No space left on device (ENOSPC)`).
    public let message: String
    /// Where the error was raised (`#fileID`, `#line`), for logs.
    public let fileID: String
    public let line: Int

    public init(_ code: Code, path: String? = nil, message: String, fileID: String = #fileID, line: Int = #line) {
        self.code = code
        systemCall = nil
        self.path = path
        self.message = message
        self.fileID = fileID
        self.line = line
    }

    /// The error for a failed call, with the code ``SystemErrorCode/code(for:)`` gives it.
    public init(_ failure: SystemCallError) {
        code = Code.code(for: failure)
        systemCall = failure
        path = failure.path
        message = System.errnoText(failure.errno)
        fileID = failure.fileID
        line = failure.line
    }

    /// The call that failed (`openat`, `inotify_add_watch`, `sd_notify`, ...), when one did.
    public var call: String? { systemCall?.call }
    /// The positive `errno` the call reported, when a call failed.
    public var errno: Int32? { systemCall?.errno }

    public var description: String {
        if let systemCall { return systemCall.description }
        return code.rawValue + (path.map { " for \($0)" } ?? "") + ": " + message
    }
}
