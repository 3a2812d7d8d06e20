public import UbiquityErrors

/// Why a predicate could not be parsed, checked or bound, and where.
///
/// ``description`` is the sentence users see:
/// `predicate error at 19: expected a value after LIKE, found ')'`.
/// ``code`` is stable and is the wire string of the protocol's error object.
public struct MetadataPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code; its raw value is the documented wire string, e.g. `predicate.syntax`.
    public enum Code: String, StableErrorCode {
        /// Malformed text: an unexpected token, an unterminated string, a bad number.
        case syntax = "predicate.syntax"
        /// An attribute name that is not in the registry.
        case unknownAttribute = "predicate.unknownAttribute"
        /// Operands of the wrong type for the operator or attribute.
        case type = "predicate.type"
        /// A `%@`/`%K`/`%d`/`%f` without a matching argument, or an argument of the wrong kind.
        case argument = "predicate.argument"
        /// A `$VARIABLE` with no binding.
        case unboundVariable = "predicate.unboundVariable"
        /// A `MATCHES` pattern that is not a valid (linear-time) regular expression.
        case regex = "predicate.regex"
        /// Past a documented limit (``PredicateLimits``).
        case tooComplex = "predicate.tooComplex"
    }

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
