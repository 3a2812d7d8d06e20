import Logging
import Synchronization
import UbiquityServer

/// What an in-process daemon logged, line by line, in the format `ubiquityd` writes to stderr
/// (``StderrSyslogLogHandler``), with waits for a line that end as soon as it is logged.
final class DaemonLog: Sendable {
    private struct State {
        var lines: [(level: Logger.Level, line: String)] = []
        var readers: [Int: AsyncStream<String>.Continuation] = [:]
        var nextReader = 0
        var finished = false
    }
    private let state = Mutex(State())
    /// The lowest level ``text`` shows: what the daemon's `log_level` lets through.
    let level: Logger.Level

    init(level: Logger.Level) { self.level = level }

    /// A logger whose every entry lands here. At least `info` is kept, whatever ``level`` says,
    /// so that readiness (the `ready` line) can be awaited; ``text`` leaves out what `level` would not write.
    func logger(label: String) -> Logger {
        let handler = StderrSyslogLogHandler(logLevel: min(level, .info)) { [self] line in append(line) }
        return Logger(label: label) { _ in handler }
    }

    /// The lines the daemon wrote so far at ``level`` or above, one per line.
    var text: String {
        state.withLock { state in
            state.lines.filter { $0.level >= level }.map(\.line).joined(separator: "\n")
        }
    }

    private func append(_ line: String) {
        let level = Self.level(of: line)
        let readers = state.withLock { state in
            state.lines.append((level, line))
            return Array(state.readers.values)
        }
        for reader in readers { reader.yield(line) }
    }

    /// The daemon stopped: readers still waiting get no more lines.
    func finish() {
        let readers = state.withLock { state in
            state.finished = true
            defer { state.readers.removeAll() }
            return Array(state.readers.values)
        }
        for reader in readers { reader.finish() }
    }

    /// Waits until a line holds every one of `texts` (one already logged counts). - Returns: false
    /// when none did within `seconds` or the daemon stopped first.
    func waitForLine(holding texts: [String], within seconds: Double) async throws -> Bool {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let id = state.withLock { state in
            for (_, line) in state.lines { continuation.yield(line) }
            if state.finished { continuation.finish() }
            state.nextReader += 1
            state.readers[state.nextReader] = continuation
            return state.nextReader
        }
        continuation.onTermination = { [self] _ in _ = state.withLock { $0.readers.removeValue(forKey: id) } }
        let found = try await firstWithin(seconds) {
            for await line in lines where texts.allSatisfy(line.contains) { return true }
            return false
        }
        continuation.finish()
        return found == true
    }

    /// The level back from the `<N>` syslog prefix ``StderrSyslogLogHandler`` writes.
    private static func level(of line: String) -> Logger.Level {
        switch line.dropFirst().prefix(1) {
        case "7": .debug
        case "6": .info
        case "5": .notice
        case "4": .warning
        case "3": .error
        case "2": .critical
        default: .info
        }
    }
}
