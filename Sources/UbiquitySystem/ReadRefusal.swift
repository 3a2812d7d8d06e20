import Glibc

/// Why ``Directory/read(_:limit:singleLink:)`` did not read a file: a failed call, or a file that
/// is not one to read (a link, a FIFO, a device, too large, with a second name).
public enum ReadRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// `fstatat`, `openat`, `fstat` or `read` failed.
    case system(SystemCallError)
    /// Not a regular file (the `st_mode` file type bits say what it is).
    case notRegular(mode: UInt32)
    /// More than one hard link, where the caller asked for a single name.
    case hardLinks(Int)
    /// Larger than the limit (from its size, or read past it).
    case tooLarge(size: Int, limit: Int)
    /// The name was swapped between the status and the open, for something that is not a
    /// regular file (a regular file swapped in is read).
    case replaced

    public var description: String {
        switch self {
        case .system(let failure):
            let step = failure.call == "openat" ? "open" : failure.call == "read" ? "read" : "examine"
            return "cannot \(step) it: \(failure.message)"
        case .notRegular(let mode):
            switch mode & UInt32(S_IFMT) {
            case UInt32(S_IFLNK): return "it is a symbolic link, not a regular file (links are never followed)"
            case UInt32(S_IFIFO): return "it is a FIFO, not a regular file"
            case UInt32(S_IFDIR): return "it is a directory, not a regular file"
            default: return "it is a device or socket, not a regular file"
            }
        case .hardLinks(let count): return "it has \(count) hard links; a file the daemon reads must have one name"
        case .tooLarge(let size, let limit): return "it is \(size) bytes, more than the \(limit) it may have"
        case .replaced: return "it is not a regular file (it was replaced while being opened)"
        }
    }
}
