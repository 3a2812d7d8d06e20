import FoundationEssentials

/// An expression with what the type checker needs to know about where it came from.
struct ParsedOperand {
    var expression: Operand
    let offset: Int
    /// The 0-based argument index when the value came from `%@`/`%d`/`%f`.
    let argumentIndex: Int?
    /// Trailing Spotlight modifiers of a string literal (`'x'cd`).
    let trailing: ComparisonOptions
    /// The source text, for error messages.
    let text: String
    /// Came from an argument or a `$VARIABLE`: strings may be converted to the attribute's type.
    var isSubstituted = false
    /// The elements of a written aggregate `{...}`, with their own offsets.
    var parts: [ParsedOperand] = []
}
