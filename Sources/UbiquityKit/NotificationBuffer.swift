/// The notifications a ``MetadataQuery`` holds for a reader that has not taken them yet, in a
/// bounded amount of memory.
///
/// The daemon already coalesces per item for a client that stops reading its socket; this buffer
/// covers the other case, a program that keeps the connection read (other queries, requests) but
/// stops iterating one query's notifications. Updates are applied to ``MetadataQuery/results``
/// when they arrive, so an update notification only *describes* a change the results already
/// show. When more than ``limit`` notifications wait, the waiting updates are therefore folded
/// into one ``MetadataQuery/Notification/didReset(results:)`` carrying the current results —
/// nothing a reader needs is lost, and memory stays at one copy of the results:
///
/// ```
/// waiting:  didFinishGathering  didUpdate  resync  didUpdate … (limit reached)  didUpdate
/// becomes:  didFinishGathering  resync  didReset(current results)
/// ```
///
/// Gathering notifications are never dropped. Informational notices (`resync`, `unwatched`,
/// `containerUnavailable`, `containerAvailable`) are kept, at most ``limit`` of them: past that
/// the oldest goes.
struct NotificationBuffer {
    /// Notifications that may wait before updates are folded into a reset.
    let limit: Int
    private(set) var pending: [MetadataQuery.Notification] = []
    /// The daemon's clock as of each pending notification (same positions as `pending`).
    private var clocks: [String?] = []

    init(limit: Int) {
        self.limit = max(limit, 2)
    }

    var isEmpty: Bool { pending.isEmpty }

    /// Queues `notification`.
    ///
    /// - Parameters:
    ///   - clock: The daemon's clock once `notification` was applied (also the clock of the
    ///     current results).
    ///   - currentResults: The query's results after `notification` was applied; called
    ///     only when updates must be folded into a reset.
    mutating func append(_ notification: MetadataQuery.Notification, clock: String? = nil,
                         currentResults: () -> [MetadataItem]) {
        pending.append(notification)
        clocks.append(clock)
        guard pending.count > limit else { return }
        let before = pending.count
        let kept = pending.indices.filter { !pending[$0].describesResults }
        pending = kept.map { pending[$0] }
        clocks = kept.map { clocks[$0] }
        if pending.count < before {
            pending.append(.didReset(results: currentResults()))
            clocks.append(clock)
        }
        // Only notices (and at most two gathering notifications) remain: drop the oldest notice.
        while pending.count > limit, let oldest = pending.firstIndex(where: \.isNotice) {
            pending.remove(at: oldest)
            clocks.remove(at: oldest)
        }
    }

    /// The oldest waiting notification.
    mutating func next() -> MetadataQuery.Notification? {
        take()?.notification
    }

    /// The oldest waiting notification and the daemon's clock as of it.
    mutating func take() -> (notification: MetadataQuery.Notification, clock: String?)? {
        pending.isEmpty ? nil : (pending.removeFirst(), clocks.removeFirst())
    }
}

extension MetadataQuery.Notification {
    /// Progress, updates and resets: what the current results already reflect.
    fileprivate var describesResults: Bool {
        switch self {
        case .gatheringProgress, .didUpdate, .didReset: true
        default: false
        }
    }

    fileprivate var isNotice: Bool {
        switch self {
        case .resync, .unwatched, .containerUnavailable, .containerAvailable: true
        default: false
        }
    }
}
