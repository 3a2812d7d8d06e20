import Glibc
public import UbiquityErrors

/// Why a file-system operation of UbiquityWatch failed.
///
/// ``code`` is stable (its ``Code/rawValue`` is a documented wire string); ``description`` is the
/// sentence people read: `inotify_add_watch failed for /srv/c/Documents: No space left on device (ENOSPC)`.
public struct WatchError: Error, Sendable, CustomStringConvertible {
    /// A stable error code; its raw value is the documented string, e.g. `watch.budgetExhausted`.
    public enum Code: String, StableErrorCode {
        /// A system call failed; ``WatchError/call`` and ``WatchError/errno`` say which and why.
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
    /// The system call that failed (`openat`, `inotify_add_watch`, ...), when one did.
    public let call: String?
    /// The `errno` the call left, when a call failed.
    public let errno: Int32?
    /// The path the operation was about, when there is one.
    public let path: String?
    /// What went wrong, without the call, path and errno (those are fields of their own).
    public let message: String
    /// Where the error was raised (`#fileID`, `#line`), for logs.
    public let fileID: String
    public let line: Int

    init(
        _ code: Code, call: String? = nil, errno: Int32? = nil, path: String? = nil, message: String,
        fileID: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.call = call
        self.errno = errno
        self.path = path
        self.message = message
        self.fileID = fileID
        self.line = line
    }

    public var description: String {
        var text = call.map { "\($0) failed" } ?? code.rawValue
        if let path { text += " for \(path)" }
        text += ": " + message
        return text
    }

    /// The error for a failed system call: `ENOSPC` from `inotify_add_watch` is
    /// ``Code/watchBudgetExhausted``, everything else ``Code/systemCall``.
    static func system(
        _ call: String, errno: Int32, path: String? = nil, fileID: String = #fileID, line: Int = #line
    ) -> WatchError {
        let code: Code = call == "inotify_add_watch" && errno == ENOSPC ? .watchBudgetExhausted : .systemCall
        return WatchError(code, call: call, errno: errno, path: path, message: System.errnoText(errno),
                          fileID: fileID, line: line)
    }
}
