import Glibc
import Synchronization

/// Lets crawls (and the saved index's restore, which looks here too) step aside while the consumer
/// answers from what it already has: after a restart,
/// an answer from the saved index (freshness "saved") is gathered and written while the crawl
/// that checks the index has just begun, and on two cores the crawl's walkers took most of the
/// processor from it. Each such answer holds the pause (``hold(for:)``) until it is written
/// (``release()``), for at most its bound; all holds together at most ``CrawlPauseState/budget``.
///
/// A walker looks before it reads each stretch of a directory's entries, so between directories
/// too (``waitWhileHeld()``): one load when not held; when held, it waits in steps of a
/// millisecond until the pause is released or its bound has passed. A hold dropped at its bound
/// still gets its release later; that release is ignored (``CrawlPauseState``).
/// Nothing the crawl waits for waits for the pause's holder (an answer from the saved index
/// never waits for the crawl), and every hold ends by its bound: no crawl is held for good.
public final class CrawlPause: Sendable {
    private let state: Mutex<CrawlPauseState>
    /// Whether any hold is on: the walkers' one load.
    private let held = Atomic<Bool>(false)
    /// Threads waiting now (tests): walkers, and a saved index's restore stepping aside with them.
    private let waiting = Atomic<Int>(0)
    /// Told each time a walker begins to wait (tests wait for that rather than look again and again).
    private let walkerWaits: (@Sendable () -> Void)?

    /// The step a waiting walker sleeps between looks.
    static let step: Duration = .milliseconds(1)

    /// - Parameters:
    ///   - budget: the longest all holds together hold crawls, over the pause's life.
    ///   - walkerWaits: told, on the walker's thread, each time a walker begins to wait.
    public init(budget: Duration = .seconds(2), walkerWaits: (@Sendable () -> Void)? = nil) {
        state = Mutex(CrawlPauseState(budget: budget))
        self.walkerWaits = walkerWaits
    }

    /// Crawls step aside from their next directory on, until ``release()`` or `bound` from now.
    public func hold(for bound: Duration) {
        let now = ContinuousClock.now
        // The flag is set under the lock, so that it never says other than the last change did.
        state.withLock { state in
            state.hold(now: now, bound: bound)
            held.store(state.isHeld(now: now), ordering: .releasing)
        }
    }

    /// A hold ends (its answer is written).
    public func release() {
        let now = ContinuousClock.now
        state.withLock { state in
            state.release(now: now)
            held.store(state.isHeld(now: now), ordering: .releasing)
        }
    }

    /// Whether crawls step aside now.
    public var isHeld: Bool {
        let now = ContinuousClock.now
        return state.withLock { $0.isHeld(now: now) }
    }

    /// Walkers waiting at the pause now.
    public var waitingWalkers: Int { waiting.load(ordering: .relaxed) }

    /// Returns once crawls need not step aside: at once when no hold is on. Other background work
    /// that should step aside when the crawl does calls it too (the daemon's restore of its saved
    /// index, through `StepAside`).
    public func waitWhileHeld() {
        guard held.load(ordering: .acquiring) else { return }
        waiting.add(1, ordering: .relaxed)
        defer { waiting.subtract(1, ordering: .relaxed) }
        walkerWaits?()
        while true {
            let now = ContinuousClock.now
            let stillHeld = state.withLock { state -> Bool in
                let on = state.isHeld(now: now)
                if !on { held.store(false, ordering: .releasing) }
                return on
            }
            guard stillHeld else { return }
            var step = timespec(tv_sec: 0, tv_nsec: Int(Self.step.components.attoseconds / 1_000_000_000))
            _ = nanosleep(&step, nil)
        }
    }
}
