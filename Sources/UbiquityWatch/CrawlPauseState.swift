/// When crawls step aside (``CrawlPause``), as a value with the time passed in: held while any
/// hold is, each for at most its bound, and all of them together for at most a budget over the
/// pause's life, so that no client can keep a crawl from finishing.
///
/// ```
/// hold(+500 ms) ─ held ─ release ─ not held
/// hold(+500 ms) ─ held ──────────── 500 ms: not held (its holds dropped; a late release is ignored)
/// ```
struct CrawlPauseState: Sendable {
    /// The longest the pause may hold crawls in all.
    let budget: Duration
    /// Holds not yet released.
    private(set) var holds = 0
    /// When the current holds end at the latest.
    private var until: ContinuousClock.Instant?
    /// When the current holding began.
    private var since: ContinuousClock.Instant?
    /// Time crawls were held before the current holding.
    private(set) var spent: Duration = .zero

    init(budget: Duration) { self.budget = budget }

    /// Crawls step aside until ``release(now:)``, or `bound` from `now`.
    mutating func hold(now: ContinuousClock.Instant, bound: Duration) {
        _ = isHeld(now: now)    // a holding past its end ends first
        guard spent < budget else { return }
        if holds == 0 { since = now }
        holds += 1
        until = Swift.max(until ?? now, now + bound)
    }

    /// One hold ends; the last ends the holding. One more than were made is ignored.
    mutating func release(now: ContinuousClock.Instant) {
        guard holds > 0 else { return }
        holds -= 1
        if holds == 0 { end(now: now) }
    }

    /// Whether crawls step aside at `now`; a holding past its bound or the budget ends here.
    mutating func isHeld(now: ContinuousClock.Instant) -> Bool {
        guard holds > 0, let until, let since else { return false }
        let budgetEnd = since + (budget - spent)
        guard now < Swift.min(until, budgetEnd) else {
            end(now: Swift.min(now, until, budgetEnd))
            return false
        }
        return true
    }

    private mutating func end(now: ContinuousClock.Instant) {
        if let since { spent += Swift.max(now - since, .zero) }
        holds = 0
        until = nil
        since = nil
    }
}
