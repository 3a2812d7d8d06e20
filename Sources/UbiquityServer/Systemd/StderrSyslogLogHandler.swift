import Glibc
public import Logging
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol

/// A swift-log handler that writes one line per entry to stderr: `<6>message key=value key2=value2`.
///
/// Why this shape: when stderr is a journal stream (a service without ``JournaldLogHandler``), or any
/// syslog-style collector, the `<N>` prefix carries the priority (journald strips it and sets
/// `PRIORITY=N`); on a terminal it stays readable. One entry is always one line: a message or value
/// with a newline or another control character is written as a JSON string literal
/// (`<3>"line one\nline two"`), and so is a value that is empty or has a space, `"`, `=` or `\`
/// (`query="name LIKE \"a*\""`). Metadata keys are sorted so lines are stable.
///
/// Each line reaches fd 2 with one `write(2)` (lines up to `PIPE_BUF` are never interleaved with
/// other writers); `fputs(stderr)` is not used because Swift 6 rejects the shared `stderr` global.
public struct StderrSyslogLogHandler: DaemonLogHandler {
    /// Receives each finished line, without its trailing newline.
    public typealias Writer = @Sendable (String) -> Void

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let writer: Writer

    /// - Parameters:
    ///   - logLevel: The lowest level written.
    ///   - metadataProvider: Contextual metadata (task-locals) added to each entry.
    ///   - writer: Where lines go; fd 2 by default. Tests pass a collector.
    public init(
        logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil,
        writer: @escaping Writer = { StderrSyslogLogHandler.write($0, to: 2) }
    ) {
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
        self.writer = writer
    }

    public func log(event: LogEvent) {
        let merged = metadata(of: event)
        writer(Self.line(level: event.level, message: event.message.description, metadata: merged))
    }

    /// One entry as a line without its newline: `<4>crawl slow container=com.example.x items=12`.
    public static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = "<\(level.syslogPriority)>" + written(message, isValue: false)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " " + written(key, isValue: true) + "=" + written(LogEventRendering.text(value), isValue: true)
        }
        return line
    }

    /// Writes `line` and a newline to `fd` with as few `write(2)` calls as the kernel allows (one,
    /// for pipes and terminals), retrying `EINTR` and short writes. Errors are dropped: there is
    /// nowhere left to report a failure to write a log line.
    public static func write(_ line: String, to fd: Int32) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// `text` as it is when that cannot be misread, else as a JSON string literal (quoted, with
    /// `\n`, `\"`, `\\`, `\u001b` escapes: one grammar every log reader already knows).
    ///
    /// Line and paragraph breaks and other control characters always force the literal, so an entry
    /// stays one line. A value (`isValue`) is also quoted when it is empty or has a space, `"`, `=`
    /// or `\`, which would make `key=value` pairs ambiguous.
    static func written(_ text: String, isValue: Bool) -> String {
        let plain = (!isValue || !text.isEmpty) && text.unicodeScalars.allSatisfy { scalar in
            scalar.value >= 0x20 && scalar.value != 0x7F && scalar != "\u{2028}" && scalar != "\u{2029}"
                && (!isValue || (scalar != " " && scalar != "\"" && scalar != "=" && scalar != "\\"))
        }
        return plain ? text : JSONLine.encode(.string(text))
    }
}
