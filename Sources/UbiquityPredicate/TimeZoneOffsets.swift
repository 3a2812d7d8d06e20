/// A time zone as `$time.today` and its kin need one: the offset from UTC in force at each instant.
///
/// Our own instead of Foundation's `TimeZone`, whose named zones come from ICU (34 MB of data in
/// every static binary); the local zone's rules come from the C library (``local``).
public struct TimeZoneOffsets: Sendable {
    /// How it was named (`UTC`, `local`, `UTC+09:00`, or a caller's name), for messages and tests.
    public let name: String
    private let offsetAt: @Sendable (Int64) -> Int

    /// - Parameters:
    ///   - name: How the zone is shown.
    ///   - offset: Seconds east of UTC in force at an instant (seconds since 1970, UTC). Values
    ///     beyond ±26 hours are taken as ±26 hours.
    public init(name: String, offset: @escaping @Sendable (_ instant: Int64) -> Int) {
        self.name = name
        self.offsetAt = offset
    }

    /// Seconds east of UTC at `instant`, within ±26 hours (no zone has ever been further), so that
    /// arithmetic on a caller's odd answer cannot overflow.
    public func secondsFromUTC(at instant: Int64) -> Int {
        min(max(offsetAt(instant), -Self.maxOffset), Self.maxOffset)
    }

    static let maxOffset = 26 * 3600

    /// Coordinated Universal Time.
    public static let utc = fixed(seconds: 0)

    /// A zone that never changes its offset: `UTC+09:00` for 32,400.
    public static func fixed(seconds: Int) -> TimeZoneOffsets {
        let clamped = min(max(seconds, -maxOffset), maxOffset)
        guard clamped != 0 else { return TimeZoneOffsets(name: "UTC") { _ in 0 } }
        let sign = clamped < 0 ? "-" : "+"
        let minutes = abs(clamped) / 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return TimeZoneOffsets(name: "UTC\(sign)\(two(minutes / 60)):\(two(minutes % 60))") { _ in clamped }
    }

    /// The first instant of the local calendar day `day` (days since 1970-01-01 in local time): its
    /// midnight; the second of two midnights when clocks went back over it gives way to the first;
    /// when clocks went forward over midnight, the end of that gap (as Foundation's calendar does).
    func firstInstant(ofLocalDay day: Int64) -> Int64 {
        let midnight = day * 86_400
        // Offsets around that midnight: a day either side covers any one change of offset.
        let around = [secondsFromUTC(at: midnight - 86_400), secondsFromUTC(at: midnight), secondsFromUTC(at: midnight + 86_400)]
        var first: Int64?
        for offset in around {
            let instant = midnight - Int64(offset)
            if secondsFromUTC(at: instant) == offset { first = min(first ?? instant, instant) }
        }
        if let first { return first }
        // No instant shows midnight: the day starts when the gap ends, the first instant whose local
        // time is past midnight. Local time only grows across a gap, so a bisection finds it.
        var low = midnight - Int64(around.max() ?? 0), high = midnight - Int64(around.min() ?? 0)
        while low < high {
            let middle = low + (high - low) / 2
            if middle + Int64(secondsFromUTC(at: middle)) >= midnight { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
