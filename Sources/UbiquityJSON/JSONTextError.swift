/// Why bytes are not one line of JSON text: the sentence the protocol sends back as
/// `request.malformed` (`JSONLine.decode`) and the key-value store logs for a bad file.
public struct JSONTextError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
