/// When crawls step aside (``CrawlPause``), as a value with the time passed in: held while any
/// hold is, each for at most its bound, and all of them together for at most a budget over the
/// pause's life, so that no client can keep a crawl from finishing.
///
/// ```
/// hold(+500 ms) ─ held ─ release ─ not held
/// hold(+500 ms) ─ held ──────────── 500 ms: not held (its holds dropped; their late releases
///                                   are owed, and ignored: they do not end a newer hold)
/// ```
struct CrawlPauseState: Sendable {
    /// The longest the pause may hold crawls in all.
    let budget: Duration
    /// Holds not yet released.
    private(set) var holds = 0
    /// Releases still to come of holds dropped at their bound: each is ignored when it comes
    /// (releases are counted, not matched to holds: the oldest hold's release is the first due).
    private(set) var staleReleases = 0
    /// When the current holds end at the latest.
    private var until: ContinuousClock.Instant?
    /// When the current holding began.
    private var since: ContinuousClock.Instant?
    /// Time crawls were held before the current holding.
    private(set) var spent: Duration = .zero

    init(budget: Duration) { self.budget = budget }

    /// Crawls step aside until ``release(now:)``, or `bound` from `now`. Past the budget the hold
    /// holds nothing, and its release is owed all the same.
    mutating func hold(now: ContinuousClock.Instant, bound: Duration) {
        _ = isHeld(now: now)    // a holding past its end ends first
        guard spent < budget else {
            staleReleases += 1
            return
        }
        if holds == 0 { since = now }
        holds += 1
        until = Swift.max(until ?? now, now + bound)
    }

    /// One hold ends; the last ends the holding. The release of a hold dropped at its bound, or
    /// one more than were made, is ignored.
    mutating func release(now: ContinuousClock.Instant) {
        _ = isHeld(now: now)
        if staleReleases > 0 {
            staleReleases -= 1
            return
        }
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
        staleReleases += holds
        holds = 0
        until = nil
        since = nil
    }
}
