/// Added, changed and removed items of one update; each item appears at most once.
public struct QueryDelta: Sendable, Equatable {
    public var added: [ResultItem] = []
    public var changed: [ResultItem] = []
    public var removed: [ResultItem] = []
    /// The index's clock this update brings its subscriber to (set when it is delivered).
    public var clock: HistoryClock?
    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
    public var count: Int { added.count + changed.count + removed.count }
}
