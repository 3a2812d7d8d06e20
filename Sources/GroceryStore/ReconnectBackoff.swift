/// The waits between reconnection attempts: 100 ms, doubling up to 2 s, then 2 s for ever;
/// back to 100 ms once a connection has gathered again.
public struct ReconnectBackoff: Sendable, Hashable {
    public let initial: Duration
    public let maximum: Duration
    private var upcoming: Duration

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(2)) {
        self.initial = initial
        self.maximum = maximum
        upcoming = initial
    }

    /// The wait before the next attempt.
    public mutating func next() -> Duration {
        defer { upcoming = min(upcoming * 2, maximum) }
        return upcoming
    }

    /// A connection worked: the next loss starts again from ``initial``.
    public mutating func reset() { upcoming = initial }
}
