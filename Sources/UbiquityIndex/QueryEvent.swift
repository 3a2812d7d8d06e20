/// What a live query's subscriber receives, in order.
public enum QueryEvent: Sendable, Equatable {
    case gatheringStarted
    case gatheringProgress(count: Int)
    /// The complete, sorted result set, the clock it is as of, and for a query started `since` a
    /// clock, the difference since then (or why there is none). Not `verified`: answered from the
    /// index restored at start before the file system was checked (``QueryFreshness/saved``);
    /// ``verified`` follows.
    case gatheringFinished(ResultSet, clock: HistoryClock? = nil, since: SinceAnswer? = nil, verified: Bool = true)
    case update(QueryDelta)
    /// An unverified answer is now checked: every difference the check found was delivered
    /// before this, as ordinary updates.
    case verified
    /// The subscriber fell too far behind: here is the whole current result set.
    case reset(ResultSet, clock: HistoryClock? = nil)
    /// What the source said about the watching of one of the query's containers, as it said it
    /// (only notices that ``ChangeNotice/reachesSubscribers``; the wording is the notice's own,
    /// ``ChangeNotice/reason``). For a resync, `changes` is how many real changes it found
    /// (delivered as ordinary updates); 0 otherwise. `accessChanged` is for the server, which
    /// checks the subscriber's right again.
    case notice(ChangeNotice, changes: Int = 0)
}

public typealias QueryID = UInt64
