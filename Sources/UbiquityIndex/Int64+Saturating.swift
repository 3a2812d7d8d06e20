extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max` instead of trapping.
    ///
    /// Sizes come from the file system, which does not promise that their sum fits: two sparse
    /// files of 5 EiB in one package (possible on tmpfs) overflow a plain `+` and crash the daemon
    /// at every start. A clamped total is still the right answer to every size comparison.
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, clamped like ``saturatingAdding(_:)``.
    public func saturatingSubtracting(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other > 0 ? .min : .max
    }
}
