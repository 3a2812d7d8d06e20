import Glibc
public import UbiquityErrors
public import UbiquitySystem

/// Why a file-system operation of UbiquityWatch failed.
///
/// ``code`` is stable (its ``Code/rawValue`` is a documented wire string); ``description`` is the
/// sentence people read: `inotify_add_watch failed for /srv/c/Documents: No space left on device (ENOSPC)`.
public struct WatchError: SystemCallWrapping, Sendable, CustomStringConvertible {
    /// A stable error code; its raw value is the documented string, e.g. `watch.budgetExhausted`.
    public enum Code: String, StableErrorCode {
        /// A system call failed; ``WatchError/systemCall`` says which and why.
        case systemCall = "watch.systemCall"
        /// `inotify_add_watch` hit the kernel's `max_user_watches` (`ENOSPC`) or the configured budget.
        case watchBudgetExhausted = "watch.budgetExhausted"
        /// A path that is not absolute, or a component that could leave its parent (`..`, `/`).
        case invalidPath = "watch.invalidPath"
        /// ``FileWatcher/sync(timeout:)`` did not see its cookie in time.
        case syncTimedOut = "watch.syncTimedOut"
        /// The watcher was stopped (or never started) while the operation waited.
        case stopped = "watch.stopped"
        /// The task waiting in ``FileWatcher/sync(timeout:)`` was cancelled.
        case cancelled = "watch.cancelled"
    }

    public let code: Code
    /// The system call that failed, when one did: the door's one description of it.
    public let systemCall: SystemCallError?
    /// The path the operation was about, when there is one.
    public let path: String?
    /// What went wrong, without the call, path and errno (those are the system call's).
    public let message: String
    /// Where the error was raised (`#fileID`, `#line`), for logs.
    public let fileID: String
    public let line: Int

    init(_ code: Code, path: String? = nil, message: String, fileID: String = #fileID, line: Int = #line) {
        self.code = code
        systemCall = nil
        self.path = path
        self.message = message
        self.fileID = fileID
        self.line = line
    }

    /// The error for a failed system call: `ENOSPC` from `inotify_add_watch` is
    /// ``Code/watchBudgetExhausted``, everything else ``Code/systemCall``.
    public init(_ failure: SystemCallError) {
        code = failure.call == "inotify_add_watch" && failure.errno == ENOSPC ? .watchBudgetExhausted : .systemCall
        systemCall = failure
        path = failure.path
        message = System.errnoText(failure.errno)
        fileID = failure.fileID
        line = failure.line
    }

    /// The system call that failed (`openat`, `inotify_add_watch`, ...), when one did.
    public var call: String? { systemCall?.call }
    /// The `errno` the call left, when a call failed.
    public var errno: Int32? { systemCall?.errno }

    public var description: String {
        if let systemCall { return systemCall.description }
        return code.rawValue + (path.map { " for \($0)" } ?? "") + ": " + message
    }
}
