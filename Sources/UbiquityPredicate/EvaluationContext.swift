public import Foundation

/// The clock and calendar that `$time.*` expressions are resolved against.
public struct EvaluationContext: Sendable {
    /// "Now", in seconds since 1970.
    public var now: Double
    /// The zone whose midnight starts `$time.today`.
    public var timeZone: TimeZone
    /// First day of the week for `$time.this_week`: 1 = Sunday, 2 = Monday (ISO 8601, the default).
    public var firstWeekday: Int

    public init(now: Double? = nil, timeZone: TimeZone = .current, firstWeekday: Int = 2) {
        self.now = now ?? Date().timeIntervalSince1970
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
    }

    /// The instant a relative date names under this context.
    public func resolve(_ date: RelativeDate) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = firstWeekday
        let nowDate = Date(timeIntervalSince1970: now)
        let clamped = Int(clamping: date.offset)
        func start(_ unit: Calendar.Component) -> Date {
            calendar.dateInterval(of: unit, for: nowDate)?.start ?? nowDate
        }
        let result: Date?
        switch date.anchor {
        case .now:
            return now + Double(date.offset)
        case .today:
            result = calendar.date(byAdding: .day, value: clamped, to: start(.day))
        case .yesterday:
            result = calendar.date(byAdding: .day, value: clamped &- 1, to: start(.day))
        case .thisWeek:
            result = calendar.date(byAdding: .weekOfYear, value: clamped, to: start(.weekOfYear))
        case .thisMonth:
            result = calendar.date(byAdding: .month, value: clamped, to: start(.month))
        case .thisYear:
            result = calendar.date(byAdding: .year, value: clamped, to: start(.year))
        }
        return result?.timeIntervalSince1970 ?? (date.offset < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude)
    }
}
