extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max` instead of trapping: for sums of values
    /// that come from the file system or the wire (sizes, counts), where overflow is an attack or a
    /// sparse file, never a bug to crash on.
    func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
