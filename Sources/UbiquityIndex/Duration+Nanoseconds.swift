/// Durations as the reader thread's monotonic clock counts them.
extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
