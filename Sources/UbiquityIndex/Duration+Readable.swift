/// Durations as messages and summaries write them: exactly, in the largest unit that needs no fraction.
extension Duration {
    /// "10 s" for whole seconds, else milliseconds ("1500 ms", "200 ms"; below a millisecond "0 ms").
    /// Never traps: a duration too long for milliseconds is written in seconds, rounded down.
    public var readable: String {
        let (seconds, attoseconds) = components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        if attoseconds == 0 && seconds > 0 { return "\(seconds) s" }
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return "\(seconds) s" }
        return "\(scaled + milliseconds) ms"
    }
}
