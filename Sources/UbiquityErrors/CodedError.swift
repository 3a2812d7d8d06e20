public import UbiquityJSON

/// An error that is nothing but a stable code, a sentence and structured details: the errors of
/// the protocol itself, of the versions and document operations, of the key-value store.
///
/// Each area declares its codes once, as a ``StableErrorCode`` enum, and names its error as this
/// type with that code:
///
/// ```swift
/// public typealias KeyValueError = CodedError<KeyValueErrorCode>
/// throw KeyValueError(.invalidKey, "the key is empty", details: ["field": .string("key")])
/// ```
///
/// How an error reaches a client is decided at the edge (the server), not here: this type knows
/// no protocol, only JSON values (the leaf module UbiquityJSON) for its details.
public struct CodedError<ErrorCode: StableErrorCode>: Error, Sendable, Hashable, CustomStringConvertible {
    /// The area's code enum, so call sites read `KeyValueError.Code.quotaExceeded`.
    public typealias Code = ErrorCode

    /// The stable, documented code (its raw value is the string clients switch on).
    public var code: Code
    /// The sentence for people.
    public var message: String
    /// Structured context (`field`, `limit`, `path`...).
    public var details: [String: JSONValue]

    public init(_ code: Code, _ message: String, details: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `kv.invalidKey: the key is empty`.
    public var description: String { "\(code): \(message)" }
}
