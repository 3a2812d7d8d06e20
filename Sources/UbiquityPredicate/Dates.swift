public import Foundation

/// ISO-8601 dates and the `$time.*` clock, without a Foundation `Date` per value.
///
/// Times are seconds since 1970-01-01T00:00:00Z. Text without a zone (`2026-11-22`,
/// `2026-11-22T10:00:00`) is read as UTC.
enum ISODate {
    /// Seconds from 1970-01-01 to 2001-01-01, the reference date of `CAST(number, 'NSDate')`.
    static let referenceDateOffset = 978_307_200.0

    /// Parses `YYYY-MM-DD[THH:MM[:SS[.fraction]]][Z|±HH:MM|±HHMM]` (a space may replace `T`).
    static func parse(_ text: String) -> Double? {
        var s = Array(text.utf8)[...]
        func digits(_ n: Int) -> Int? {
            guard s.count >= n else { return nil }
            var v = 0
            for b in s.prefix(n) {
                guard b >= 48, b <= 57 else { return nil }
                v = v * 10 + Int(b - 48)
            }
            s = s.dropFirst(n)
            return v
        }
        func eat(_ c: UInt8) -> Bool {
            guard s.first == c else { return false }
            s = s.dropFirst()
            return true
        }
        guard let year = digits(4), eat(UInt8(ascii: "-")), let month = digits(2), eat(UInt8(ascii: "-")),
              let day = digits(2), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if eat(UInt8(ascii: "T")) || eat(UInt8(ascii: "t")) || eat(UInt8(ascii: " ")) {
            guard let hour = digits(2), eat(UInt8(ascii: ":")), let minute = digits(2),
                  hour < 24, minute < 60 else { return nil }
            seconds += Double(hour * 3600 + minute * 60)
            if eat(UInt8(ascii: ":")) {
                guard let second = digits(2), second < 61 else { return nil }
                seconds += Double(second)
                if eat(UInt8(ascii: ".")) || eat(UInt8(ascii: ",")) {
                    var fraction = 0.0, scale = 0.1, count = 0
                    while let b = s.first, b >= 48, b <= 57 {
                        fraction += Double(b - 48) * scale
                        scale /= 10
                        count += 1
                        s = s.dropFirst()
                    }
                    guard count > 0 else { return nil }
                    seconds += fraction
                }
            }
            if eat(UInt8(ascii: "Z")) || eat(UInt8(ascii: "z")) {
                // UTC
            } else if let signByte = s.first, signByte == UInt8(ascii: "+") || signByte == UInt8(ascii: "-") {
                s = s.dropFirst()
                guard let oh = digits(2) else { return nil }
                _ = eat(UInt8(ascii: ":"))
                guard let om = digits(2), oh < 24, om < 60 else { return nil }
                let offset = Double(oh * 3600 + om * 60)
                seconds -= signByte == UInt8(ascii: "+") ? offset : -offset
            }
        }
        return s.isEmpty ? seconds : nil
    }

    /// `2026-11-22T10:00:00Z`, with a fraction only when there is one.
    static func format(_ seconds: Double) -> String {
        let whole = seconds.rounded(.down)
        let days = Int((whole / 86_400).rounded(.down))
        let secondOfDay = Int(whole - Double(days) * 86_400)
        let (y, m, d) = civilFromDays(days)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        let fraction = seconds - whole
        if fraction > 0 {
            var digits = String(Int((fraction * 1_000_000).rounded()))
            digits = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            if !digits.isEmpty { text += "." + digits }
        }
        return text + "Z"
    }

    /// Whether ``format(_:)`` followed by ``parse(_:)`` gives back exactly `seconds`.
    static func formatsExactly(_ seconds: Double) -> Bool {
        seconds == seconds.rounded() && abs(seconds) < 253_402_300_800   // before year 10000
            && seconds >= -62_135_596_800                                  // from year 0001
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

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
