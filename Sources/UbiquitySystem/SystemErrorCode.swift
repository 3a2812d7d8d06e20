public import UbiquityErrors

/// The codes of a ``CodedSystemError``: a module's own refusals, and the one code that says "a
/// system call failed".
///
/// ```swift
/// public enum WatchErrorCode: String, SystemErrorCode {
///     case systemCall = "watch.systemCall"
///     case invalidPath = "watch.invalidPath"
/// }
/// ```
public protocol SystemErrorCode: StableErrorCode {
    /// The code of a failed system call that means nothing more particular.
    static var systemCall: Self { get }
    /// The code a failed call stands for; ``systemCall`` unless the area gives some failures a
    /// meaning of their own (the watcher's `ENOSPC` from `inotify_add_watch`).
    static func code(for failure: SystemCallError) -> Self
}

extension SystemErrorCode {
    public static func code(for failure: SystemCallError) -> Self { .systemCall }
}
