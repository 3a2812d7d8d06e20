import CUbiquitySystem
import Glibc

/// Opens what a client path names below a directory descriptor the caller holds, never following
/// a symbolic link and never leaving that directory.
///
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)` does the whole walk in
/// the kernel in one call. Where that call is refused (kernels before 5.6, a seccomp filter), the
/// same walk is made one component at a time: `O_PATH | O_DIRECTORY | O_NOFOLLOW` for each
/// directory, `O_NOFOLLOW` for the last. Both refuse a link anywhere on the way (`ELOOP` or
/// `ENOTDIR`), and ``RelativePath`` has no `..` or leading `/` to climb out with.
public enum Beneath {
    /// How the walk is made; tests use ``componentByComponent`` to prove the fallback.
    public enum Strategy: Sendable {
        /// `openat2`, falling back to ``componentByComponent`` when the call is unavailable.
        case openat2
        case componentByComponent
    }

    /// Opens `path` below `directory` with `flags` (`O_NOFOLLOW | O_CLOEXEC` are always added).
    ///
    /// - Parameters:
    ///   - directory: A directory descriptor the caller holds (`O_PATH` is fine); not closed.
    ///   - flags: `open` flags for the last component (`O_RDONLY | O_DIRECTORY`, `O_PATH`, …).
    ///   - mode: The mode of a file `O_CREAT` makes.
    /// - Returns: A descriptor the caller closes, or why not (``PathError/Reason/system(errno:component:)``).
    public static func open(_ path: RelativePath, in directory: Int32, flags: Int32, mode: UInt32 = 0,
                            strategy: Strategy = .openat2) -> Result<Int32, PathError> {
        open(path.components[...], in: directory, flags: flags, mode: mode, strategy: strategy)
    }

    /// Opens the directory holding `path`'s last component, for `*at` calls on that name
    /// (`O_RDONLY | O_DIRECTORY`: readable, so it can be listed and `fsync`ed). With a single
    /// component that is `directory` itself, opened afresh.
    public static func openParent(of path: RelativePath, in directory: Int32, strategy: Strategy = .openat2) -> Result<Int32, PathError> {
        open(path.parentComponents, in: directory, flags: O_RDONLY | O_DIRECTORY, strategy: strategy)
    }

    /// Opens `components` (already validated; empty means `directory` itself) below `directory`.
    public static func open(_ components: ArraySlice<[UInt8]>, in directory: Int32, flags: Int32, mode: UInt32 = 0,
                            strategy: Strategy = .openat2) -> Result<Int32, PathError> {
        let flags = flags | O_NOFOLLOW | O_CLOEXEC
        guard !components.isEmpty else {
            return retrying(component: 0) { openat(directory, ".", (flags & ~O_NOFOLLOW) | O_DIRECTORY, mode_t(mode)) }
        }
        if strategy == .openat2 {
            var joined = Array(components.joined(separator: [PathBytes.separator]))
            joined.append(0)
            let result = retrying(component: components.count - 1) {
                joined.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { ubq_openat2(directory, $0.baseAddress!, flags, mode, UBQ_RESOLVE_BENEATH_NO_LINKS) }
                }
            }
            switch result {
            case .failure(let error) where error.errno == ENOSYS || error.errno == E2BIG || error.errno == EPERM:
                break       // the call itself is unavailable here: walk by hand
            default:
                return result
            }
        }
        var current = directory
        defer { if current != directory { close(current) } }
        for (index, component) in components.enumerated() {
            let last = index == components.count - 1
            let result = retrying(component: index) {
                withCString(component) { openat(current, $0, last ? flags : UBQ_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, mode_t(mode)) }
            }
            switch result {
            case .failure(let error): return .failure(error)
            case .success(let next):
                if last { return .success(next) }
                if current != directory { close(current) }
                current = next
            }
        }
        fatalError("unreachable: the last component returns")
    }

    /// Runs `body` with `bytes` as a NUL-terminated C string.
    public static func withCString<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        var terminated = bytes
        terminated.append(0)
        return terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }

    /// `body` until it does not fail with `EINTR` (``System/retrying(_:)``); -1 becomes the
    /// error at `component`.
    private static func retrying(component: Int, _ body: () -> Int32) -> Result<Int32, PathError> {
        let fd = System.retrying(body)
        return fd >= 0 ? .success(fd) : .failure(PathError(.system(errno: errno, component: component)))
    }
}
