/// What a change source says about the watching itself (not about items), carried in a
/// ``ChangeBatch`` beside the changes. The one notice type from the watcher to the engine: the
/// engine decides which ones reach subscribers (``reachesSubscribers``); the wording of each is
/// decided here (``reason``), nowhere else.
public enum ChangeNotice: Sendable, Hashable, CustomStringConvertible {
    /// The container root exists and is watched (at start, and when it reappears).
    case containerAvailable(ContainerID)
    /// The container root is gone (deleted, moved away, unmounted); its items were removed.
    /// The source keeps checking and sends ``containerAvailable(_:)`` when it is back.
    case containerUnavailable(ContainerID)
    /// The container was rescanned from scratch and the index told only the real differences.
    case resync(ContainerID, reason: ResyncReason)
    /// A subtree could not be watched; it is kept correct by periodic rescans.
    case subtreeUnwatched(UnwatchedSubtree)
    /// A subtree that was unwatched is watched again (status and journal only).
    case subtreeWatched(ContainerID, [String])
    /// A subtree that was unwatched is gone (deleted or moved away; status and journal only).
    case subtreeGone(ContainerID, [String])
    /// A directory or entry could not be read (permissions, I/O); its contents are not indexed
    /// (status and journal only).
    case skipped(ContainerID, [String], reason: String)
    /// Who may read the container changed (a configuration reload): each subscriber's right to
    /// it must be checked again. Announced by the daemon, never by the watcher.
    case accessChanged(ContainerID)

    public var container: ContainerID {
        switch self {
        case .containerAvailable(let id), .containerUnavailable(let id), .resync(let id, _), .accessChanged(let id),
             .subtreeWatched(let id, _), .subtreeGone(let id, _), .skipped(let id, _, _):
            id
        case .subtreeUnwatched(let subtree):
            subtree.container
        }
    }

    /// Whether live-query subscribers hear about it; the rest is for status and the journal.
    public var reachesSubscribers: Bool {
        switch self {
        case .containerAvailable, .containerUnavailable, .resync, .subtreeUnwatched, .accessChanged: true
        case .subtreeWatched, .subtreeGone, .skipped: false
        }
    }

    /// Why, as one sentence for people: "the kernel event queue overflowed".
    public var reason: String {
        switch self {
        case .containerAvailable: "the container root exists and is watched"
        case .containerUnavailable: "the container directory is missing, unreadable, or no longer configured"
        case .resync(_, let reason): reason.description
        case .subtreeUnwatched(let subtree): subtree.reason
        case .subtreeWatched: "the subtree is watched again"
        case .subtreeGone: "the unwatched subtree is gone"
        case .skipped(_, _, let reason): reason
        case .accessChanged: "the container's owner or group changed"
        }
    }

    public var description: String {
        switch self {
        case .containerAvailable(let id), .containerUnavailable(let id), .resync(let id, _), .accessChanged(let id):
            "\(id): \(reason)"
        case .subtreeUnwatched(let subtree): subtree.description
        case .subtreeWatched(let id, let path), .subtreeGone(let id, let path), .skipped(let id, let path, _):
            "\(id)/\(path.joined(separator: "/")): \(reason)"
        }
    }
}
