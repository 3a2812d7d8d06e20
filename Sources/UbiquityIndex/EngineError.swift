public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: String
    public let message: String
    public var description: String { message }
    public static func unknownQuery(_ id: QueryID) -> EngineError {
        EngineError(code: "query.unknown", message: "no query with id \(id)")
    }
    public static func unknownContainer(_ id: ContainerID) -> EngineError {
        EngineError(code: "container.unknown", message: "no container '\(id)'")
    }
}
