/// The code of ``SystemCallError``. Stable (the raw value is the documented string).
public enum SystemCallErrorCode: String, StableErrorCode {
    /// A system call (or a C library call reporting an `errno`) failed.
    case systemCall = "system.call"
}
