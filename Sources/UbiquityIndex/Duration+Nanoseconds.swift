/// Durations in whole nanoseconds and milliseconds: the watcher's monotonic clock, the daemon's
/// logs. Never traps: beyond what an `Int64` of nanoseconds holds (292 years) the value is clamped.
extension Duration {
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carried) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !carried else { return seconds < 0 ? .min : .max }
        return sum
    }

    public var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
