/// What a live query's subscriber receives, in order.
public enum QueryEvent: Sendable, Equatable {
    case gatheringStarted
    case gatheringProgress(count: Int)
    /// The complete, sorted result set, the clock it is as of, and for a query started `since` a
    /// clock, the difference since then (or why there is none).
    case gatheringFinished(ResultSet, clock: HistoryClock? = nil, since: SinceAnswer? = nil)
    case update(QueryDelta)
    /// The container was rescanned after lost events; `changes` real changes were found
    /// (and delivered as ordinary updates).
    case resync(container: ContainerID, reason: String, changes: Int)
    /// The subscriber fell too far behind: here is the whole current result set.
    case reset(ResultSet, clock: HistoryClock? = nil)
    case unwatched(container: ContainerID, path: String, reason: String)
    case containerUnavailable(ContainerID)
    case containerAvailable(ContainerID)
    /// Who may read the container changed: the server checks the subscriber's right again.
    case accessChanged(ContainerID)
}

public typealias QueryID = UInt64
