/// One side of a comparison.
public indirect enum Operand: Sendable, Hashable {
    case attribute(Attribute)
    case constant(Value)
    /// `$time.today(-1)` and friends: resolved against the evaluation clock, so a live query
    /// written with them keeps meaning "today".
    case relativeDate(RelativeDate)
    /// `{a, b, c}`: constants and relative dates only.
    case aggregate([Operand])
}
