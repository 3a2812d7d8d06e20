/// Why a pattern could not be compiled by `LinearRegex`.
public struct LinearRegexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 0-based offset in Characters (grapheme clusters) into the pattern where the problem is.
    public let offset: Int
    /// A sentence that names what was expected/found, e.g. "unbalanced ')'", "backreferences are not supported (MATCHES uses a linear-time engine)".
    public let message: String

    public var description: String {
        "invalid regular expression at offset \(offset): \(message)"
    }
}
