public import Logging

extension Logger.Level {
    /// The syslog priority of this level, as journald's `PRIORITY=` and the `<N>` stderr prefix use
    /// it: trace and debug 7 (debug), info 6, notice 5, warning 4, error 3, critical 2 (crit).
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// How both daemon log handlers write a metadata value (their merging is ``DaemonLogHandler``'s).
enum LogEventRendering {
    /// A metadata value as text: strings as they are, arrays and dictionaries as swift-log prints them.
    static func text(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array, .dictionary: value.description
        }
    }
}
