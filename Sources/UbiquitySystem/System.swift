import Glibc

/// The one door to system calls: retries `EINTR`, turns `-1` and `errno` into a
/// ``SystemCallError`` naming the call and the path.
public enum System {
    /// Runs `body` until it does not fail with `EINTR`; `-1` becomes a ``SystemCallError``.
    ///
    /// - Parameters:
    ///   - call: The system call's name, for the error (`"openat"`).
    ///   - path: The path the call was about, for the error.
    /// - Returns: What `body` returned, never `-1`.
    @inline(__always)
    @discardableResult
    public static func call<Result: FixedWidthInteger>(
        _ call: String, path: @autoclosure () -> String? = nil,
        fileID: String = #fileID, line: Int = #line, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        try Self.call(call, path: path(), as: SystemCallError.self, fileID: fileID, line: line, body)
    }

    /// ``call(_:path:fileID:line:_:)`` failing with a module's own error type, which carries the
    /// ``SystemCallError`` (`as: WatchError.self`).
    @inline(__always)
    @discardableResult
    public static func call<Result: FixedWidthInteger, Failure: SystemCallWrapping>(
        _ call: String, path: @autoclosure () -> String? = nil, as failure: Failure.Type,
        fileID: String = #fileID, line: Int = #line, _ body: () -> Result
    ) throws(Failure) -> Result {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = Glibc.errno
            if error == EINTR { continue }
            throw Failure(SystemCallError(call, errno: error, path: path(), fileID: fileID, line: line))
        }
    }

    /// `body` again while it fails with `EINTR` (`-1` and `errno`); its result otherwise, with
    /// `errno` left as the call set it: for callers that decide by `errno` themselves (a walk
    /// that tells "not found" from "a link" from "refused").
    @inline(__always)
    public static func retrying<Result: FixedWidthInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            if result != -1 || Glibc.errno != EINTR { return result }
        }
    }

    /// For calls that return a negative `errno` instead of setting it (libsystemd's `sd_*`):
    /// the result when it is not negative, else the error (`EINTR` is retried).
    @discardableResult
    public static func callReturningErrno<Failure: SystemCallWrapping>(
        _ call: String, path: @autoclosure () -> String? = nil, as failure: Failure.Type,
        fileID: String = #fileID, line: Int = #line, _ body: () -> Int32
    ) throws(Failure) -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            if result == -EINTR { continue }
            throw Failure(SystemCallError(call, errno: -result, path: path(), fileID: fileID, line: line))
        }
    }

    /// Writes every byte of `bytes` to `fd` (a short write is continued, `EINTR` retried).
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String? = nil) throws(SystemCallError) {
        var written = 0
        while written < bytes.count {
            let n = try call("write", path: path) { Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written) }
            // A regular file never takes nothing; were it to, looping would never end.
            guard n > 0 else { throw SystemCallError("write", errno: EIO, path: path) }
            written += n
        }
    }

    /// ``writeAll(_:to:path:)`` of an array's bytes.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String? = nil) throws(SystemCallError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(SystemCallError) in try writeAll(buffer, to: fd, path: path) } }.get()
    }

    /// `CLOCK_MONOTONIC` in nanoseconds.
    public static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// `CLOCK_REALTIME` in nanoseconds since 1970: the clock of file times and of other
    /// programs' time stamps (a sync engine's events).
    public static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }

    /// `strerror` plus the symbolic name: `No such file or directory (ENOENT)`.
    public static func errnoText(_ error: Int32) -> String {
        let failure = SystemCallError("", errno: error)
        return failure.message + (failure.errnoName.map { " (\($0))" } ?? "")
    }
}
