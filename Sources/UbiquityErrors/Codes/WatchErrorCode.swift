/// The codes of ``WatchError``; the raw value is the documented string, e.g. `watch.budgetExhausted`.
public enum WatchErrorCode: String, StableErrorCode {
    /// A system call failed; the error says which call and why.
    case systemCall = "watch.systemCall"
    /// `inotify_add_watch` hit the kernel's `max_user_watches` (`ENOSPC`) or the configured budget.
    case watchBudgetExhausted = "watch.budgetExhausted"
    /// A path that is not absolute, or a component that could leave its parent (`..`, `/`).
    case invalidPath = "watch.invalidPath"
    /// `FileWatcher.sync(timeout:)` did not see its cookie in time.
    case syncTimedOut = "watch.syncTimedOut"
    /// The watcher was stopped (or never started) while the operation waited.
    case stopped = "watch.stopped"
    /// The task waiting in `FileWatcher.sync(timeout:)` was cancelled.
    case cancelled = "watch.cancelled"
}
