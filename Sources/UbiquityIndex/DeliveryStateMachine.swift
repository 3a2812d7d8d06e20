/// What one query owes its subscriber, and when it may be delivered: coalescing per item,
/// batching windows, `disableUpdates`/`enableUpdates`, and the backpressure reset.
///
/// Decisions only; the engine performs them. Time is a parameter, so tests drive it.
///
/// ```
/// changes:   a  b      a'            (a, b, a' arrive)
/// window:    |--------|--------|     (batching interval)
/// delivered:          [a', b]        (one update; a coalesced with a')
/// ```
struct DeliveryStateMachine<Instant: InstantProtocol> where Instant.Duration == Duration {
    enum Pending: Equatable {
        case added(ResultItem)
        case changed(ResultItem)
        /// `path` is the path the subscriber last saw.
        case removed(ResultItem)
    }

    enum Output: Equatable {
        case update(QueryDelta)
        /// Too much piled up for a subscriber that did not read: send the whole result set.
        case reset
    }

    let interval: Duration
    /// Most items that may wait for one subscriber before it gets a reset instead.
    let limit: Int
    private(set) var pending: [ItemIdentity: Pending] = [:]
    private(set) var enabled = true
    private(set) var needsReset = false
    private var lastDelivery: Instant?

    /// - Parameter gatheredAt: gathering counts as a delivery, so the first update waits for
    ///   its window like every other.
    init(interval: Duration, limit: Int, gatheredAt: Instant? = nil) {
        self.interval = interval
        self.limit = limit
        self.lastDelivery = gatheredAt
    }

    var hasOutput: Bool { needsReset || !pending.isEmpty }

    /// Merges a delta into what is pending, item by item.
    mutating func add(_ delta: QueryDelta) {
        if needsReset { return }        // the reset will carry everything
        for item in delta.removed {
            switch pending[item.identity] {
            case .added?: pending[item.identity] = nil
            case .changed(let earlier)?:
                // Report it under the path the subscriber knows.
                pending[item.identity] = .removed(ResultItem(identity: item.identity, path: earlier.oldPath ?? earlier.path,
                                                             values: item.values))
            default: pending[item.identity] = .removed(item)
            }
        }
        for item in delta.added {
            switch pending[item.identity] {
            case .removed(let earlier)?:
                // It stopped matching and matches again: the subscriber still has it, so the net
                // change is a `changed` (from the path it knows, if that moved).
                pending[item.identity] = .changed(ResultItem(identity: item.identity, path: item.path,
                                                             oldPath: earlier.path == item.path ? nil : earlier.path,
                                                             values: item.values))
            default:
                pending[item.identity] = .added(item)
            }
        }
        for item in delta.changed {
            switch pending[item.identity] {
            case .added?:
                pending[item.identity] = .added(ResultItem(identity: item.identity, path: item.path, values: item.values))
            case .changed(let earlier)?:
                pending[item.identity] = .changed(ResultItem(identity: item.identity, path: item.path,
                                                             oldPath: earlier.oldPath ?? item.oldPath, values: item.values))
            default:
                pending[item.identity] = .changed(item)
            }
        }
        if pending.count > limit {
            pending.removeAll()
            needsReset = true
        }
    }

    mutating func disable() { enabled = false }
    mutating func enable() { enabled = true }

    /// When the pending output may go out: nil when there is none or updates are disabled.
    func deadline(now: Instant) -> Instant? {
        guard enabled, hasOutput else { return nil }
        guard let lastDelivery else { return now }
        let due = lastDelivery.advanced(by: interval)
        return due < now ? now : due
    }

    /// Takes the output if it is due at `now`.
    mutating func take(now: Instant, force: Bool = false) -> Output? {
        guard hasOutput, enabled || force else { return nil }
        if !force, let due = deadline(now: now), due > now { return nil }
        lastDelivery = now
        if needsReset {
            needsReset = false
            pending.removeAll()
            return .reset
        }
        var delta = QueryDelta()
        for entry in pending.values {
            switch entry {
            case .added(let item): delta.added.append(item)
            case .changed(let item): delta.changed.append(item)
            case .removed(let item): delta.removed.append(item)
            }
        }
        pending.removeAll(keepingCapacity: true)
        // Stable output: by path within each kind.
        delta.added.sort { $0.path < $1.path }
        delta.changed.sort { $0.path < $1.path }
        delta.removed.sort { $0.path < $1.path }
        return .update(delta)
    }
}
