/// What a query started `since` a clock learns besides its results.
public enum SinceAnswer: Sendable, Equatable {
    /// Exactly what changed for this query since the clock (`since`).
    case changes(QueryDelta, since: HistoryClock)
    /// The difference cannot be proven; the results are all there is.
    case fresh(FreshReason)
}
