public import UbiquityErrors
public import UbiquityPredicate

/// A client-facing error that is nothing but a stable code, a sentence and details (the errors of
/// one area of the protocol: versions, the key-value store). Conforming gives it the wire
/// rendering and `CODE: message` as its description; it only declares its `Code` enum, the
/// three stored properties and its initialiser.
public protocol CodedClientError: ClientFacingError, CustomStringConvertible {
    associatedtype Code: StableErrorCode
    var code: Code { get }
    var message: String { get }
    var details: [String: JSONValue] { get }
}

extension CodedClientError {
    public var clientCode: String { code.rawValue }
    public var clientMessage: String { message }
    public var clientDetails: [String: JSONValue] { details }
    public var description: String { "\(code): \(message)" }
}
