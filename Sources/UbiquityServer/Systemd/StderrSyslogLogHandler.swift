import Glibc
public import Logging

/// A swift-log handler that writes one line per entry to stderr: `<6>message key=value key2=value2`.
///
/// Why this shape: when stderr is a journal stream (a service without ``JournaldLogHandler``), or any
/// syslog-style collector, the `<N>` prefix carries the priority (journald strips it and sets
/// `PRIORITY=N`); on a terminal it stays readable. One entry is always one line, so newlines and
/// other control characters inside the message or a value are escaped (`\n`, `\t`, `\u{1B}`, and `\\`
/// for a backslash); values with spaces, `"`, `=` or nothing at all are quoted (`key="a b"`).
/// Metadata keys are sorted so lines are stable.
///
/// Each line reaches fd 2 with one `write(2)` (lines up to `PIPE_BUF` are never interleaved with
/// other writers); `fputs(stderr)` is not used because Swift 6 rejects the shared `stderr` global.
public struct StderrSyslogLogHandler: LogHandler {
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

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = LogEventRendering.metadata(of: event, handler: metadata, provider: metadataProvider)
        writer(Self.line(level: event.level, message: event.message.description, metadata: merged))
    }

    /// One entry as a line without its newline: `<4>crawl slow container=com.example.x items=12`.
    public static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = "<\(level.syslogPriority)>" + escaped(message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " " + escaped(key) + "=" + quoted(LogEventRendering.text(value))
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

    /// `text` with `\` and control characters escaped, so it cannot end the line.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}":
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A value as `key=` expects it: escaped, and in quotes when it has spaces, `"` or `=` or is empty.
    static func quoted(_ value: String) -> String {
        let text = escaped(value)
        guard text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return text }
        return "\"" + text.map { $0 == "\"" ? "\\\"" : String($0) }.joined() + "\""
    }
}
