/// When to rescan everything after kernel queue overflows: at once for the first, then at most
/// once per backoff, however many overflows arrive meanwhile. Pure; time is a parameter
/// (monotonic nanoseconds), so tests drive it without sleeping.
///
/// ```
/// overflow ─▶ rescan ─┬─ overflow, overflow ─────────────▶ rescan (one, at last + backoff)
///                     └──────────── backoff ─────────────┘
/// ```
struct ResyncSchedule {
    let backoff: Int64
    private(set) var overflows = 0
    private(set) var resyncs = 0
    private(set) var lastResyncAt: Int64?
    /// When the owed rescan may run; nil when none is owed.
    private(set) var dueAt: Int64?

    init(backoffNanoseconds: Int64) { backoff = backoffNanoseconds }

    /// A rescan is owed: events were lost and no sync may be acknowledged by a cookie until it ran.
    var isPending: Bool { dueAt != nil }

    mutating func overflowed(at now: Int64) {
        overflows += 1
        let earliest = lastResyncAt.map { $0 + backoff } ?? now
        dueAt = max(now, earliest)
    }

    func isDue(at now: Int64) -> Bool { dueAt.map { now >= $0 } ?? false }

    mutating func resynced(at now: Int64) {
        dueAt = nil
        lastResyncAt = now
        resyncs += 1
    }
}
