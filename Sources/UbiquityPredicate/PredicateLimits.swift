/// Limits that keep hostile predicates from exhausting the stack, memory or time.
public enum PredicateLimits {
    /// Longest predicate text, in UTF-8 bytes.
    public static let maxLength = 65_536
    /// Deepest nesting of parentheses, `NOT` and aggregates.
    public static let maxDepth = 128
    /// Most elements in one `{...}` aggregate.
    public static let maxAggregateCount = 10_000
    /// Most comparisons in one predicate.
    public static let maxComparisons = 4_096
    /// Most compiled regular-expression instructions of all `MATCHES` comparisons of one
    /// predicate together (one pattern may compile to at most 20,000). Matching costs
    /// subject length × program size per item, so this bounds one query's evaluation work.
    public static let maxTotalRegexInstructions = 50_000
}
