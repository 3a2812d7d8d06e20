/// How far one transfer of one file has come: `done` of `total` units (bytes for this device's
/// downloads, blocks for another device's). `total` 0 means not known yet. Pure.
struct BlockProgress: Sendable, Hashable {
    var done: Int64
    var total: Int64

    /// 0–100, rounded down; 0 while `total` is unknown. Never traps: values out of range from the
    /// engine are clamped.
    var percent: Int64 {
        guard total > 0 else { return 0 }
        let done = min(max(self.done, 0), total)
        // Past Int64.max / 100 the product would overflow; total ≥ done is then large enough to
        // divide by 100 first.
        return done <= Int64.max / 100 ? done * 100 / total : done / (total / 100)
    }
}
