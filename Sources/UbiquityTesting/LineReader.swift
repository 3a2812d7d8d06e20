public import Foundation

/// The lines a child process writes to a pipe (its standard output), read on a background thread
/// until end of file; ``next(within:)`` waits for the next one with a deadline, so a test that
/// expects output it never gets fails instead of hanging, and returns at once at end of file.
///
/// ```swift
/// let pipe = Pipe()
/// process.standardOutput = pipe
/// try process.run()
/// let lines = LineReader(pipe.fileHandleForReading)
/// let first = try #require(lines.next(within: 10))
/// ```
public final class LineReader: @unchecked Sendable {
    // @unchecked: `lines`, `partial` and `ended` are only touched with `condition` held.
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = Data()
    private var ended = false

    /// Starts reading `handle` on a detached thread; the thread ends at end of file.
    public init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty { ended = true; condition.broadcast(); condition.unlock(); return }
                partial.append(data)
                while let newline = partial.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
                    partial = Data(partial[(newline + 1)...])
                }
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// The next line (without its newline), or nil when none arrives within `seconds` or the
    /// writer closed the pipe (``isAtEnd`` tells which).
    public func next(within seconds: Double) -> String? {
        OwnThreads.checkMayBlock("LineReader.next")
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            guard !ended, condition.wait(until: deadline) else { return nil }
        }
        return lines.removeFirst()
    }

    /// True when the writer closed the pipe and every line it wrote was taken.
    public var isAtEnd: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended && lines.isEmpty
    }
}
