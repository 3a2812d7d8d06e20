/// Where the daemon stands in Syncthing's event stream (`/rest/events?since=N`), and when the
/// stream can no longer be trusted. Syncthing numbers events from 1 each time it starts and keeps
/// the latest 1,000 in memory, so an id alone does not say which run of Syncthing it came from:
/// after a restart, `since=N` answers the new run's events past N as if they followed on, and
/// nothing at all until the new run passes N. The cursor therefore also holds the run (Syncthing's
/// `startTime`, read whenever a poll comes back empty): another run, or ids that go back, mean it
/// restarted; a first id beyond the next one expected means events were dropped before they were
/// read. Either way, what was learnt from the stream must be read again from the engine's state.
/// Pure.
///
/// ```
/// run S1:  …55 56 57 | restarted     run S2: 1 2 3 (quiet)
/// daemon:  since=57 ─────────────────────────────────▶ [] after 30 s
///          startTime S2 ≠ S1 ─▶ .restarted: read the state again, follow S2 from its newest event
/// ```
public struct EngineEventCursor: Sendable, Hashable {
    /// What one answer means for the reader.
    public enum Verdict: Sendable, Hashable {
        /// The events follow on from the same run: apply them.
        case inOrder
        /// Another run of the engine answered (its start time changed, or ids went back): nothing
        /// read from the previous run's stream holds; read the engine's state again.
        case restarted
        /// Events were lost (more came than the engine's buffer keeps): read its state again.
        case lost
    }

    /// The newest event id read; 0 before any.
    public private(set) var last: Int64
    /// The run of the engine `last` belongs to (Syncthing's `startTime`); nil when it names none.
    public private(set) var run: String?

    /// A cursor at `last`, the newest event of `run` taken into account by a reading of the
    /// engine's state made after it.
    public init(run: String?, last: Int64 = 0) {
        self.run = run
        self.last = last
    }

    /// Takes one answer of `/rest/events?since=last` — its event ids in the order given — from
    /// the run the cursor stands in: ``take(_:run:)`` without a new reading of the run.
    public mutating func take(_ ids: [Int64]) -> Verdict { take(ids, run: run) }

    /// Takes one answer of `/rest/events?since=last` — its event ids in the order given, and the
    /// engine's run as read right after the answer — and moves on to its newest event. After
    /// ``Verdict/restarted`` the cursor stands at the newest id of the answer (0 when it was
    /// empty) in the new run; events of the new run before it are only in the state read again.
    ///
    /// - Complexity: O(ids).
    public mutating func take(_ ids: [Int64], run now: String?) -> Verdict {
        let verdict: Verdict
        if now != run {
            verdict = .restarted
        } else if let first = ids.first, let newest = ids.max() {
            verdict = first <= last || newest < last ? .restarted : first != last &+ 1 ? .lost : .inOrder
        } else {
            verdict = .inOrder
        }
        last = ids.max() ?? (verdict == .restarted ? 0 : last)
        run = now
        return verdict
    }
}
