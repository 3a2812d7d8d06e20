import Glibc

/// Why a client path was refused or could not be opened.
public struct PathError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// An empty component (`a//b`, a trailing `/`), or nothing at all.
        case emptyComponent
        /// A `.` or `..` component.
        case dotComponent
        /// A NUL byte, which the kernel would read as the end of the path.
        case nulByte
        /// A component longer than ``RelativePath/maxComponentBytes``.
        case componentTooLong
        /// More than ``RelativePath/maxPathBytes`` in all.
        case pathTooLong
        /// The kernel refused a step: `errno`, with the component it was at (0-based).
        case system(errno: Int32, component: Int)
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    /// True when a symbolic link (or something that is not a directory) stood on the way:
    /// `ELOOP`, `ENOTDIR`, or `EXDEV` (an escape `openat2` caught).
    public var isLinkOrNotDirectory: Bool {
        if case .system(let code, _) = reason { return code == ELOOP || code == ENOTDIR || code == EXDEV }
        return false
    }

    /// The `errno` of a refused step, if that is the reason.
    public var errno: Int32? {
        if case .system(let code, _) = reason { return code }
        return nil
    }

    public var description: String {
        switch reason {
        case .emptyComponent: "has an empty component, or names nothing below the container"
        case .dotComponent: "has a '.' or '..' component"
        case .nulByte: "contains a NUL byte"
        case .componentTooLong: "has a component longer than \(RelativePath.maxComponentBytes) bytes"
        case .pathTooLong: "is longer than \(RelativePath.maxPathBytes) bytes"
        case .system(let code, _) where code == ELOOP || code == ENOTDIR || code == EXDEV:
            "passes through a symbolic link or something that is not a directory (links are never followed)"
        case .system(let code, _): String(cString: strerror(code))
        }
    }
}

