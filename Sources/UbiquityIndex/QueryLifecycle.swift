/// Everything one live query owes its reader, and when: the lifecycle, the coalesced pending
/// delta, batching windows, `disableUpdates`/`enableUpdates`, the backpressure reset, and
/// whether a reader is waiting. Pure: time is passed in (as an offset from the engine's clock
/// origin), and every transition returns the ``Action``s the engine must perform.
///
/// ```
///             gathered(live: false) ──────────────────────────┐
///                                                             ▼
///  gathering ──(gatheringFinished read)──▶ live ──stop()──▶ stopped ──release()──▶ released
///      │                                  ▲   │                ▲
///      │ disable() (held until read)      │   │ disable()      │ stop()
///      ▼                         enable() │   ▼                │
///      └─────────────────────────────────▶ paused ─────────────┘
///  (release() from any state goes to released; a waiting reader is finished)
/// ```
///
/// What is owed goes out in this order: gathering events, then notices (at most `noticeLimit`,
/// oldest dropped), then the pending delta as one update (or a reset past `itemLimit`). Gathering
/// events and the update released by `enable()` are never dropped: they are not notices.
/// An unverified answer's `verified` goes out once everything pending when the check finished
/// has gone out (the update, in its window, after the next read when nothing was pending).
///
/// Batching timeline (interval = one window; the last delivery, or gathering, opens it):
/// ```
/// changes:   a  b      a'            (a, b, a' arrive)
/// window:    |--------|--------|     (batching interval)
/// delivered:          [a', b]        (one update; a coalesced with a')
/// timer:     armed when a reader waits and something is pending; fires at the window's end
/// ```
struct QueryLifecycle {
    enum State: Equatable { case gathering, live, paused, stopped, released }

    /// What the reader receives; `reset` is resolved by the engine into the current results.
    enum Delivery: Equatable {
        case event(QueryEvent)
        case reset
    }

    enum Action: Equatable {
        /// Resume the waiting reader with this.
        case deliver(Delivery)
        /// Resume the waiting reader with nil: the query has ended for it.
        case finish
        /// Call ``timerFired(now:)`` at this instant (replaces any armed timer).
        case armTimer(at: Duration)
        case cancelTimer
    }

    enum Pending: Equatable {
        case added(ResultItem)
        case changed(ResultItem)
        /// `path` is the path the subscriber last saw.
        case removed(ResultItem)
    }

    let interval: Duration
    /// Most items that may wait for one subscriber before it gets a reset instead.
    let itemLimit: Int
    /// Most notices that may wait for one subscriber; older ones are dropped.
    let noticeLimit: Int

    private(set) var pending: [ItemIdentity: Pending] = [:]
    private(set) var needsReset = false
    /// Gathering events: owed in full, never dropped.
    private(set) var gatheringEvents: [QueryEvent] = []
    private(set) var notices: [QueryEvent] = []
    private(set) var readerIsWaiting = false
    private(set) var timerArmedAt: Duration?
    private var gatheringDelivered = false
    private var enabled = true
    /// `enable()` released what was held: it goes out on the next read, window or not.
    private var releaseOwed = false
    private var stopped = false
    private var released = false
    private var lastDelivery: Duration?
    /// The check of an unverified answer finished: `verified` is owed once the update pending
    /// then has gone out (`afterUpdate`), or at the next read (`next`).
    private var verifiedOwed: VerifiedOwed?

    private enum VerifiedOwed { case afterUpdate, next }

    init(interval: Duration, itemLimit: Int, noticeLimit: Int) {
        self.interval = interval
        self.itemLimit = itemLimit
        self.noticeLimit = noticeLimit
    }

    var state: State {
        if released { return .released }
        if stopped { return .stopped }
        if !gatheringDelivered { return .gathering }
        return enabled ? .live : .paused
    }

    /// Whether the query still takes changes and notices.
    var isActive: Bool { !stopped && !released }

    var hasPendingUpdate: Bool { needsReset || !pending.isEmpty }

    // MARK: - Events

    /// Gathering is done at `now`: its events are owed, and gathering counts as a delivery, so the
    /// first update waits for its window like every other. A query that is not live stops here.
    /// Not `verified`: answered before the index was checked; ``verificationFinished(now:)`` follows.
    mutating func gathered(_ results: ResultSet, clock: HistoryClock? = nil, since: SinceAnswer? = nil, verified: Bool = true,
                           live: Bool, now: Duration) -> [Action] {
        gatheringEvents = [.gatheringStarted, .gatheringProgress(count: results.count),
                           .gatheringFinished(results, clock: clock, since: since, verified: verified)]
        lastDelivery = now
        if !live { stopped = true }
        return pump(now: now)
    }

    /// Merges a delta into what is pending, item by item.
    mutating func changesArrived(_ delta: QueryDelta, now: Duration) -> [Action] {
        guard isActive, !delta.isEmpty else { return [] }
        merge(delta)
        return pump(now: now)
    }

    /// What the subscriber was answered no longer stands for the query's results (an answer
    /// remembered from before a restart that the loaded index does not give again): a reset is
    /// owed, carrying the results whole; nothing pending is worth sending before it.
    mutating func resultsReplaced(now: Duration) -> [Action] {
        guard isActive else { return [] }
        pending.removeAll()
        needsReset = true
        return pump(now: now)
    }

    mutating func noticeArrived(_ notice: QueryEvent, now: Duration) -> [Action] {
        guard isActive else { return [] }
        if notices.count >= noticeLimit { notices.removeFirst() }
        notices.append(notice)
        return pump(now: now)
    }

    /// The check of an unverified answer is done: every difference it found is in what is pending
    /// (or already went out). `verified` follows what is pending now.
    mutating func verificationFinished(now: Duration) -> [Action] {
        guard isActive else { return [] }
        verifiedOwed = hasPendingUpdate ? .afterUpdate : .next
        return pump(now: now)
    }

    /// A reader asks for the next event; one reader at a time (the engine refuses a second).
    mutating func readerWaits(now: Duration) -> [Action] {
        readerIsWaiting = true
        return pump(now: now)
    }

    mutating func readerCancelled() -> [Action] {
        guard readerIsWaiting else { return [] }
        readerIsWaiting = false
        return [.finish] + disarm()
    }

    mutating func timerFired(now: Duration) -> [Action] {
        timerArmedAt = nil
        return pump(now: now)
    }

    mutating func disable() -> [Action] {
        enabled = false
        return disarm()
    }

    /// Releases everything held back since `disable()` as one update.
    mutating func enable(now: Duration) -> [Action] {
        enabled = true
        if hasPendingUpdate { releaseOwed = true }
        return pump(now: now)
    }

    /// No more changes or notices; what is already queued (gathering, notices) is still read.
    mutating func stop(now: Duration) -> [Action] {
        stopped = true
        pending.removeAll()
        needsReset = false
        releaseOwed = false
        verifiedOwed = nil
        return pump(now: now) + disarm()
    }

    mutating func release() -> [Action] {
        released = true
        var actions = disarm()
        if readerIsWaiting {
            readerIsWaiting = false
            actions.insert(.finish, at: 0)
        }
        return actions
    }

    // MARK: - Deciding

    /// When the pending update may go out: nil when there is none or updates are held.
    func deadline(now: Duration) -> Duration? {
        guard isActive, hasPendingUpdate else { return nil }
        if releaseOwed { return now }
        guard enabled else { return nil }
        guard let lastDelivery else { return now }
        let due = lastDelivery + interval
        return due < now ? now : due
    }

    /// Hands the waiting reader what is due, finishes it, or arms the timer for the window.
    private mutating func pump(now: Duration) -> [Action] {
        guard readerIsWaiting, !released else { return [] }
        if let delivery = takeDue(now: now) {
            readerIsWaiting = false
            return [.deliver(delivery)] + disarm()
        }
        if stopped {
            readerIsWaiting = false
            return [.finish] + disarm()
        }
        if let due = deadline(now: now), timerArmedAt != due {
            timerArmedAt = due
            return [.armTimer(at: due)]
        }
        return []
    }

    private mutating func disarm() -> [Action] {
        guard timerArmedAt != nil else { return [] }
        timerArmedAt = nil
        return [.cancelTimer]
    }

    private mutating func takeDue(now: Duration) -> Delivery? {
        if !gatheringEvents.isEmpty {
            let event = gatheringEvents.removeFirst()
            if gatheringEvents.isEmpty { gatheringDelivered = true }
            return .event(event)
        }
        if !notices.isEmpty { return .event(notices.removeFirst()) }
        if verifiedOwed == .next {
            verifiedOwed = nil
            return .event(.verified)
        }
        guard let due = deadline(now: now), due <= now else { return nil }
        lastDelivery = now
        releaseOwed = false
        if verifiedOwed == .afterUpdate { verifiedOwed = .next }
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
        delta.added.sort(by: ResultItem.inPathOrder)
        delta.changed.sort(by: ResultItem.inPathOrder)
        delta.removed.sort(by: ResultItem.inPathOrder)
        return .event(.update(delta))
    }

    private mutating func merge(_ delta: QueryDelta) {
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
        if pending.count > itemLimit {
            pending.removeAll()
            needsReset = true
        }
    }
}
