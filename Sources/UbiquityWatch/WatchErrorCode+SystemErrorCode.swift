import Glibc
public import UbiquityErrors
public import UbiquitySystem

/// The watcher's codes as the codes of a ``CodedSystemError``.
extension WatchErrorCode: SystemErrorCode {
    /// `ENOSPC` from `inotify_add_watch` is ``watchBudgetExhausted``, everything else ``systemCall``.
    public static func code(for failure: SystemCallError) -> WatchErrorCode {
        failure.call == "inotify_add_watch" && failure.errno == ENOSPC ? .watchBudgetExhausted : .systemCall
    }
}
