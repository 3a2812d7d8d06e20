import Glibc

/// Why a file-system operation of UbiquityWatch failed.
///
/// ``code`` is stable (its ``Code/rawValue`` is a documented wire string); ``description`` is the
/// sentence people read: `inotify_add_watch failed for /srv/c/Documents: No space left on device (ENOSPC)`.
public struct WatchError: Error, Sendable, CustomStringConvertible {
    /// A stable error code. A struct around a private enum so that codes can be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case systemCall = "watch.systemCall"
            case watchBudgetExhausted = "watch.budgetExhausted"
            case invalidPath = "watch.invalidPath"
            case syncTimedOut = "watch.syncTimedOut"
            case stopped = "watch.stopped"
            case cancelled = "watch.cancelled"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// A system call failed; ``WatchError/call`` and ``WatchError/errno`` say which and why.
        public static let systemCall = Code(.systemCall)
        /// `inotify_add_watch` hit the kernel's `max_user_watches` (`ENOSPC`) or the configured budget.
        public static let watchBudgetExhausted = Code(.watchBudgetExhausted)
        /// A path that is not absolute, or a component that could leave its parent (`..`, `/`).
        public static let invalidPath = Code(.invalidPath)
        /// ``FileWatcher/sync(timeout:)`` did not see its cookie in time.
        public static let syncTimedOut = Code(.syncTimedOut)
        /// The watcher was stopped (or never started) while the operation waited.
        public static let stopped = Code(.stopped)
        /// The task waiting in ``FileWatcher/sync(timeout:)`` was cancelled.
        public static let cancelled = Code(.cancelled)

        /// The documented wire string, e.g. `watch.budgetExhausted`.
        public var rawValue: String { kind.rawValue }
        public var description: String { kind.rawValue }
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
