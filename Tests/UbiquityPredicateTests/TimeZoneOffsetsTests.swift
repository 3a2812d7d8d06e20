import Testing
@testable import UbiquityPredicate

/// `$time.*` computed from a zone's UTC offsets (no Foundation calendar): the changes of offset
/// around midnight that a calendar must get right, and offsets no calendar can reach.
@Suite struct TimeZoneOffsetsTests {
    /// A day far from 1970, its midnight as local seconds.
    static let day: Int64 = 20_000
    static let midnight = day * 86_400

    @Test("clocks going forward over midnight: the day starts when the gap ends")
    func gapAtMidnight() {
        // At -03:00 until local midnight (03:00 UTC), then -02:00: local time jumps from 00:00 to 01:00,
        // as Chile's and Brazil's did; the day's first instant shows 01:00.
        let change = Self.midnight + 3 * 3600
        let zone = TimeZoneOffsets(name: "gap") { $0 < change ? -3 * 3600 : -2 * 3600 }
        #expect(zone.firstInstant(ofLocalDay: Self.day) == change)
        // The day before and after are ordinary.
        #expect(zone.firstInstant(ofLocalDay: Self.day - 1) == Self.midnight - 86_400 + 3 * 3600)
        #expect(zone.firstInstant(ofLocalDay: Self.day + 1) == Self.midnight + 86_400 + 2 * 3600)
        let context = EvaluationContext(now: Double(change + 5 * 3600), timeZone: zone)
        #expect(context.resolve(RelativeDate(.today)) == Double(change))
        #expect(context.resolve(RelativeDate(.today, offset: 1)) == Double(Self.midnight + 86_400 + 2 * 3600))
    }

    @Test("clocks going back over midnight: the first of the two midnights")
    func twoMidnights() {
        // At -02:00 until local 01:00 (03:00 UTC), then -03:00: 00:00 to 01:00 is lived twice.
        let change = Self.midnight + 3 * 3600
        let zone = TimeZoneOffsets(name: "back") { $0 < change ? -2 * 3600 : -3 * 3600 }
        #expect(zone.firstInstant(ofLocalDay: Self.day) == Self.midnight + 2 * 3600)
        let context = EvaluationContext(now: Double(change + 600), timeZone: zone)  // the second 00:10
        #expect(context.resolve(RelativeDate(.today)) == Double(Self.midnight + 2 * 3600))
        #expect(context.resolve(RelativeDate(.yesterday)) == Double(Self.midnight - 86_400 + 2 * 3600))
    }

    @Test("days, weeks, months and years across a change of offset keep local midnight")
    func acrossDaylightSaving() {
        // New York, 2026: EDT from 2026-03-08T07:00:00Z to 2026-11-01T06:00:00Z, EST around it.
        let newYork = TimeZoneOffsets(name: "America/New_York") {
            $0 >= 1_772_953_200 && $0 < 1_793_512_800 ? -4 * 3600 : -5 * 3600
        }
        let context = EvaluationContext(now: 1_773_144_000, timeZone: newYork)   // Tuesday 2026-03-10T12:00:00Z
        #expect(context.resolve(RelativeDate(.today)) == 1_773_115_200)          // 2026-03-10 00:00 EDT
        #expect(context.resolve(RelativeDate(.today, offset: -2)) == 1_772_946_000)  // Sunday the 8th, 00:00 EST
        #expect(context.resolve(RelativeDate(.thisWeek)) == 1_773_028_800)       // Monday the 9th, 00:00 EDT
        #expect(context.resolve(RelativeDate(.thisMonth)) == 1_772_341_200)      // 1 March, 00:00 EST
        #expect(context.resolve(RelativeDate(.thisYear, offset: 1)) == 1_798_779_600)  // 2027-01-01 00:00 EST
    }

    @Test("every first weekday, even out of range, starts a week within the last seven days")
    func firstWeekdays() {
        let now = 1_795_341_600.0   // Sunday 2026-11-22T10:00:00Z
        let sunday = 1_795_305_600.0
        for (first, start) in [(1, sunday), (2, sunday - 6 * 86_400), (7, sunday - 86_400), (4, sunday - 4 * 86_400)] {
            let context = EvaluationContext(now: now, timeZone: .utc, firstWeekday: first)
            #expect(context.resolve(RelativeDate(.thisWeek)) == start, "firstWeekday \(first)")
        }
        for odd in [0, -5, Int.max, Int.min] {
            let start = EvaluationContext(now: now, timeZone: .utc, firstWeekday: odd).resolve(RelativeDate(.thisWeek))
            #expect(start <= sunday && start > sunday - 7 * 86_400, "firstWeekday \(odd)")
        }
    }

    @Test("offsets no calendar reaches are the greatest finite dates, and nothing traps")
    func unreachable() {
        let context = EvaluationContext(now: 1_795_341_600, timeZone: .fixed(seconds: 9 * 3600))
        for anchor in RelativeDate.Anchor.allCases where anchor != .now {
            #expect(context.resolve(RelativeDate(anchor, offset: .max)) == .greatestFiniteMagnitude, "\(anchor)")
            #expect(context.resolve(RelativeDate(anchor, offset: .min)) == -.greatestFiniteMagnitude, "\(anchor)")
            #expect(context.resolve(RelativeDate(anchor, offset: 2_000_000 * 366)) == .greatestFiniteMagnitude, "\(anchor)")
        }
        // Far but reachable: the first day of the year 992,026.
        let far = context.resolve(RelativeDate(.thisYear, offset: 990_000))
        #expect(far < .greatestFiniteMagnitude && far > 3e13)
        let lost = EvaluationContext(now: .infinity, timeZone: .utc)
        #expect(lost.resolve(RelativeDate(.today, offset: -1)) == -.greatestFiniteMagnitude)
        // A caller's zone that answers nonsense is held to ±26 hours.
        let wild = TimeZoneOffsets(name: "wild") { _ in .max }
        #expect(wild.secondsFromUTC(at: 0) == 26 * 3600)
        #expect(EvaluationContext(now: 0, timeZone: wild).resolve(RelativeDate(.today)).isFinite)
    }

    @Test("fixed zones are named by their offset")
    func fixedNames() {
        #expect(TimeZoneOffsets.utc.name == "UTC")
        #expect(TimeZoneOffsets.fixed(seconds: 9 * 3600).name == "UTC+09:00")
        #expect(TimeZoneOffsets.fixed(seconds: -(3 * 3600 + 1800)).name == "UTC-03:30")
        #expect(TimeZoneOffsets.fixed(seconds: 1_000_000).secondsFromUTC(at: 0) == 26 * 3600)
    }
}
