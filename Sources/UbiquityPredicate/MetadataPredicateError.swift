public import UbiquityErrors

/// Why a predicate could not be parsed, checked or bound, and where.
///
/// ``description`` is the sentence users see:
/// `predicate error at 19: expected a value after LIKE, found ')'`.
/// ``code`` is stable and is the wire string of the protocol's error object.
public struct MetadataPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code; its raw value is the documented string (``PredicateErrorCode``).
    public typealias Code = PredicateErrorCode

    public let code: Code
    /// 0-based offset into the predicate text, counted in Unicode scalars (characters, for ASCII text).
    public let offset: Int
    /// The explanation without the position prefix.
    public let message: String

    public init(_ code: Code, at offset: Int, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String { "predicate error at \(offset): \(message)" }
}
