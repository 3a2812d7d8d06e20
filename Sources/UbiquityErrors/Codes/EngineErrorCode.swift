/// The codes of ``EngineError``: why the engine refused an operation. Stable (the raw value is the wire string).
public enum EngineErrorCode: String, StableErrorCode {
    /// No query with that id (or it was released).
    case unknownQuery = "query.unknown"
    /// A container the engine does not serve.
    case unknownContainer = "container.unknown"
    /// The change source could not confirm in time that every change made before the request
    /// is in the index (the file watcher is behind, as on a machine too busy for it): nothing was started.
    case syncTimedOut = "index.syncTimedOut"
}
