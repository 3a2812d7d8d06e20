/// A date relative to the evaluation clock: `$time.now(-3600)`, `$time.today(-1)`, ...
public struct RelativeDate: Sendable, Hashable {
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        /// Offset in seconds.
        case now
        /// Start of the day; offset in days.
        case today
        /// Start of yesterday; offset in days.
        case yesterday
        /// Start of the week; offset in weeks.
        case thisWeek = "this_week"
        /// Start of the month; offset in months.
        case thisMonth = "this_month"
        /// Start of the year; offset in years.
        case thisYear = "this_year"
    }

    public var anchor: Anchor
    public var offset: Int64

    public init(_ anchor: Anchor, offset: Int64 = 0) {
        self.anchor = anchor
        self.offset = offset
    }
}
