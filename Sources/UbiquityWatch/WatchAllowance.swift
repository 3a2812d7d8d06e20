import Synchronization

/// The watches a crawl walked on two threads may still add (``SubtreeHelper``): both walkers take
/// one here before each new watch, so together they stay within the watch budget exactly as one
/// walker would. Which directories go unwatched when it runs out depends on which walker got
/// there first.
final class WatchAllowance: Sendable {
    private let left: Atomic<Int>

    /// - Parameter watches: The budget's watches not in use when the crawl starts (at least 0).
    init(_ watches: Int) {
        left = Atomic(max(0, watches))
    }

    /// Takes one watch; false when none is left (nothing taken).
    func take() -> Bool {
        var current = left.load(ordering: .relaxed)
        while current > 0 {
            let (exchanged, original) = left.compareExchange(expected: current, desired: current - 1,
                                                             ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back a watch taken for a watch that could not be added.
    func giveBack() { left.add(1, ordering: .relaxed) }

    /// Watches left.
    var count: Int { left.load(ordering: .relaxed) }
}
