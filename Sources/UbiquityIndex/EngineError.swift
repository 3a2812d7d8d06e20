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
}
