/// Where the daemon stands in Syncthing's event stream (`/rest/events?since=N`), and when the
/// stream can no longer be trusted. Syncthing numbers events from 1 each time it starts and keeps
/// the latest 1,000 in memory: ids that go back mean it restarted, and a first id beyond the next
/// one expected means events were dropped before they were read. Either way, what was learnt
/// from the stream must be read again from the engine's state. Pure.
public struct EngineEventCursor: Sendable, Hashable {
    /// What a batch of events means for the reader.
    public enum Verdict: Sendable, Hashable {
        /// The events follow on: apply them.
        case inOrder
        /// Syncthing restarted (ids went back), or events were lost (a gap): re-read its state.
        case resync
    }

    /// The newest event id read; 0 before any.
    public private(set) var last: Int64 = 0

    public init(last: Int64 = 0) { self.last = last }

    /// Takes the ids of one answer of `/rest/events?since=last` (in the order given) and moves on
    /// to the newest. The first answer after start is always a resync: nothing was read before.
    public mutating func take(_ ids: [Int64]) -> Verdict {
        guard let first = ids.first, let newest = ids.max() else { return .inOrder }
        let expected = last &+ 1
        defer { last = newest }
        if last == 0 { return .resync }
        if first != expected || newest < last { return .resync }
        return .inOrder
    }

    /// After the engine was unreachable: whatever it says next is read as new.
    public mutating func reset() { last = 0 }
}
