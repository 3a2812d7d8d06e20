public import Logging

/// What the daemon's log handlers (``JournaldLogHandler``, ``StderrSyslogLogHandler``) share: they
/// keep their own metadata and provider the same way and merge them into each event the same way,
/// so only where an entry is written differs.
public protocol DaemonLogHandler: LogHandler {}

extension DaemonLogHandler {
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The metadata of one entry: the handler's, then the provider's, then the call's (later wins),
    /// plus the event's error as `error` unless the call already set that key.
    func metadata(of event: LogEvent) -> Logger.Metadata {
        var merged = metadata
        if let metadataProvider { merged.merge(metadataProvider.get(), uniquingKeysWith: { _, new in new }) }
        if let own = event.metadata { merged.merge(own, uniquingKeysWith: { _, new in new }) }
        if let error = event.error, merged["error"] == nil { merged["error"] = "\(error)" }
        return merged
    }
}
