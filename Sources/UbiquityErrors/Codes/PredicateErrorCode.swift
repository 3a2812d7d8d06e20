/// The codes of ``MetadataPredicateError``: why a predicate was refused. Stable (the raw value is the wire string).
public enum PredicateErrorCode: String, StableErrorCode {
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
    /// Past a documented limit (`PredicateLimits`).
    case tooComplex = "predicate.tooComplex"
}
