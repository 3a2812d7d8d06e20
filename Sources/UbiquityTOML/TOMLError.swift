/// A syntax error: where, and what was expected and found.
public struct TOMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var position: TOMLPosition
    public var message: String

    public var description: String { "\(position): \(message)" }
}
