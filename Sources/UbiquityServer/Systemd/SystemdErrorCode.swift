public import UbiquitySystem

/// The codes of ``SystemdError``; the raw value is the documented string, e.g. `systemd.notUnixListener`.
public enum SystemdErrorCode: String, SystemErrorCode {
    /// A libsystemd function or system call failed; ``CodedSystemError/systemCall`` says which and why.
    case systemCall = "systemd.systemCall"
    /// A passed file descriptor is not a listening `AF_UNIX` stream socket.
    case notUnixListener = "systemd.notUnixListener"
    /// Sockets were passed, but none carries the expected `FileDescriptorName=`.
    case noActivatedSocket = "systemd.noActivatedSocket"
}
