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

/// What both daemon log handlers do with an event before writing it somewhere.
enum LogEventRendering {
    /// The metadata of one entry: the handler's, then the provider's, then the call's (later wins),
    /// plus the event's error as `error` unless the call already set that key.
    static func metadata(
        of event: LogEvent, handler: Logger.Metadata, provider: Logger.MetadataProvider?
    ) -> Logger.Metadata {
        var merged = handler
        if let provider { merged.merge(provider.get(), uniquingKeysWith: { _, new in new }) }
        if let own = event.metadata { merged.merge(own, uniquingKeysWith: { _, new in new }) }
        if let error = event.error, merged["error"] == nil { merged["error"] = "\(error)" }
        return merged
    }

    /// A metadata value as text: strings as they are, arrays and dictionaries as swift-log prints them.
    static func text(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array, .dictionary: value.description
        }
    }
}
