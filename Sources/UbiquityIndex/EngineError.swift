public import UbiquityErrors

/// Why the engine refused an operation. ``code`` is stable (its raw value is the wire string).
public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code; its raw value is the documented string (``EngineErrorCode``).
    public typealias Code = EngineErrorCode

    public let code: Code
    public let message: String
    public var description: String { message }
    public static func unknownQuery(_ id: QueryID) -> EngineError {
        EngineError(code: .unknownQuery, message: "no query with id \(id)")
    }
    public static func unknownContainer(_ id: ContainerID) -> EngineError {
        EngineError(code: .unknownContainer, message: "no container '\(id)'")
    }
    public static func syncTimedOut(after timeout: Duration) -> EngineError {
        EngineError(code: .syncTimedOut, message: "the daemon could not confirm within \(timeout.readable) that it has taken in every change made before this request: its file watcher is behind (the machine may be too busy for it to read); nothing was started, try again")
    }
}
