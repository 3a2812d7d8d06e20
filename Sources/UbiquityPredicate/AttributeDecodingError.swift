/// An item given as JSON could not be read; names the key and what was wrong.
public struct AttributeDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public let key: String
    public let message: String
    public var description: String { "attribute '\(key)': \(message)" }
}
