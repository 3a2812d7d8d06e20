/// What `query.gatheringFinished` carries besides the clock.
public enum GatheringAnswer: Sendable, Hashable {
    /// The complete, sorted result set. `fresh` is set when the query asked `since` a clock and
    /// the daemon could not prove the difference.
    case results([WireItem], fresh: FreshAnswer? = nil)
    /// For a query started `since` a clock: exactly what changed for it since then, and how
    /// many results it has now.
    case changes(since: String, added: [WireItem], changed: [WireItem], removed: [WireItem], count: Int)
}

/// Why a `since` query got its full result set: a stable code (`clock.otherEpoch`,
/// `clock.pastRetention`, `clock.ahead`) and a sentence.
public struct FreshAnswer: Sendable, Hashable {
    public let code: String
    public let reason: String

    public init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }
}
