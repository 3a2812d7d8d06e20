// UbiquityErrors owns the one way error codes are declared in this package: a `String` enum per
// error type, conforming to `StableErrorCode`, every one of them in `Codes/` — the one place that
// lists each code the product reports, whichever module raises it; and the one shape of an error that is only a code,
// a sentence and details (`CodedError`). It sits below every other module (the predicate, index
// and watch modules cannot see the wire protocol; it builds only on the leaf UbiquityJSON, for the
// details), so it holds no wire types itself: how an error reaches a client is decided by the
// server (`ClientFacingError`).

/// A stable, documented error code: `watch.budgetExhausted`, `predicate.syntax`, `config.syntax`.
///
/// Declare the codes of an error type once, as the cases of a `String` enum:
///
/// ```swift
/// public enum Code: String, StableErrorCode {
///     /// Why a caller would see this code.
///     case syntax = "predicate.syntax"
/// }
/// ```
///
/// The raw value is the string clients, logs and docs use; `allCases` is the registry the docs
/// and their tests read, so a code exists in exactly one place.
public protocol StableErrorCode: RawRepresentable<String>, CaseIterable, Hashable, Sendable,
                                 CustomStringConvertible {}

extension StableErrorCode {
    /// The documented string, e.g. `watch.budgetExhausted`.
    public var description: String { rawValue }
}
