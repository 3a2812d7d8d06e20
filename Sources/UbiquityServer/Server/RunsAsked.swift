/// Runs asked for while one runs fold into one more run after it: what keeps a store's reloads
/// and imports, asked for by every batch the watcher sends, at one task per store and never
/// missing a change. Pure; each store keeps one in a `Mutex`.
///
/// ```
/// ask() ─▶ true: run now    (ask() meanwhile ─▶ false, and again)
/// run ends ─▶ ended(): true when asked meanwhile (run once more), false when done
/// ```
struct RunsAsked: Sendable {
    private var running = false
    private var again = false

    /// Someone asks for a run: true when the caller is to run now, false when one runs already
    /// (it runs once more after).
    mutating func ask() -> Bool {
        if running { again = true; return false }
        running = true
        return true
    }

    /// A run ended: true when it must run once more (asked for meanwhile), false when done.
    mutating func ended() -> Bool {
        if again { again = false; return true }
        running = false
        return false
    }
}
