/// What the engine tells a query's subscribers about the source itself (not about items).
public enum ChangeNotice: Sendable, Hashable {
    /// The source lost events (kernel queue overflow) and rescanned the container.
    case rescanned(ContainerID, reason: String)
    /// A subtree could not be watched; it is kept correct by periodic rescans.
    case unwatched(ContainerID, path: String, reason: String)
    case containerUnavailable(ContainerID)
    case containerAvailable(ContainerID)
}
