/// Limits that keep the engine's memory bounded.
public struct EngineLimits: Sendable {
    /// Items that may wait for one subscriber before it receives a `reset` instead.
    public var pendingItemsPerQuery: Int = 10_000
    /// Notices (resync, unwatched...) that may wait for one subscriber; older ones are dropped.
    /// Gathering events and updates are not notices: they are never dropped.
    public var pendingNoticesPerQuery: Int = 64
    /// How long a gathering evaluates before it lets the engine do other work (other clients'
    /// requests, batches, other gatherings), then goes on. Zero: one item per slice.
    public var gatheringSlice: Duration = .milliseconds(5)
    /// How much change history `since` queries are answered from.
    public var history = ChangeHistory.Retention()
    public init() {}
}
