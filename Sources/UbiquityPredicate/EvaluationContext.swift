import FoundationEssentials

/// The clock and calendar that `$time.*` expressions are resolved against.
///
/// The calendar is the proleptic Gregorian one, computed here from the zone's UTC offsets
/// (``TimeZoneOffsets``): no Foundation `Calendar`, which would bring ICU's data into every binary.
public struct EvaluationContext: Sendable {
    /// "Now", in seconds since 1970.
    public var now: Double
    /// The zone whose midnight starts `$time.today`.
    public var timeZone: TimeZoneOffsets
    /// First day of the week for `$time.this_week`: 1 = Sunday, 2 = Monday (ISO 8601, the default), … 7 = Saturday.
    public var firstWeekday: Int

    public init(now: Double? = nil, timeZone: TimeZoneOffsets = .local, firstWeekday: Int = 2) {
        self.now = now ?? Date().timeIntervalSince1970
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
    }

    /// The instant a relative date names under this context. An offset that leaves the years
    /// ±1,000,000 gives the greatest finite value of its sign.
    public func resolve(_ date: RelativeDate) -> Double {
        if date.anchor == .now { return now + Double(date.offset) }
        let unbounded = date.offset < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude
        guard now.isFinite, abs(now) < Double(Self.maxDays) * 86_400,
              let day = Self.firstDay(of: date, today: localDay(of: Int64(now.rounded(.down))), firstWeekday: firstWeekday)
        else { return unbounded }
        return Double(timeZone.firstInstant(ofLocalDay: day))
    }

    /// Days since 1970-01-01 of the local date at `instant`.
    private func localDay(of instant: Int64) -> Int64 {
        Self.floorDivide(instant + Int64(timeZone.secondsFromUTC(at: instant)), 86_400)
    }

    static let maxYears: Int64 = 1_000_000
    static let maxDays: Int64 = maxYears * 366

    /// The local day a relative date starts on, or nil past ±``maxYears`` (offsets are untrusted).
    static func firstDay(of date: RelativeDate, today: Int64, firstWeekday: Int) -> Int64? {
        let n = date.offset
        guard abs(today) <= maxDays, n > Int64.min else { return nil }
        func within(_ day: Int64?) -> Int64? { day.flatMap { abs($0) <= maxDays ? $0 : nil } }
        func adding(_ a: Int64, _ b: Int64) -> Int64? {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? nil : within(sum)
        }
        switch date.anchor {
        case .now:
            return nil
        case .today:
            return adding(today, n)
        case .yesterday:
            return adding(today, n).flatMap { adding($0, -1) }
        case .thisWeek:
            // 1970-01-01 was a Thursday: weekday 4 counting from Sunday as 0.
            let weekday = floorModulo(today + 4, 7)
            let first = floorModulo(Int64(firstWeekday % 7) - 1, 7)
            let (weeks, overflow) = n.multipliedReportingOverflow(by: 7)
            return overflow ? nil : adding(today - floorModulo(weekday - first, 7), weeks)
        case .thisMonth:
            guard abs(n) <= maxYears * 12 else { return nil }
            let (year, month, _) = ISODate.civilFromDays(Int(today))
            let months = Int64(year) * 12 + Int64(month - 1) + n
            let newYear = floorDivide(months, 12)
            guard abs(newYear) <= maxYears else { return nil }
            return within(Int64(ISODate.daysFromCivil(year: Int(newYear), month: Int(floorModulo(months, 12)) + 1, day: 1)))
        case .thisYear:
            guard abs(n) <= maxYears else { return nil }
            let (year, _, _) = ISODate.civilFromDays(Int(today))
            let newYear = Int64(year) + n
            guard abs(newYear) <= maxYears else { return nil }
            return within(Int64(ISODate.daysFromCivil(year: Int(newYear), month: 1, day: 1)))
        }
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 { a - floorDivide(a, b) * b }
}
