/// ISO-8601 dates and the `$time.*` clock, without a Foundation `Date` per value.
///
/// Times are seconds since 1970-01-01T00:00:00Z. Text without a zone (`2026-11-22`,
/// `2026-11-22T10:00:00`) is read as UTC.
public enum ISODate {
    /// Seconds from 1970-01-01 to 2001-01-01, the reference date of `CAST(number, 'NSDate')`.
    static let referenceDateOffset = 978_307_200.0

    /// Parses `YYYY-MM-DD[THH:MM[:SS[.fraction]]][Z|±HH:MM|±HHMM]` (a space may replace `T`).
    static func parse(_ text: String) -> Double? {
        // The string's own bytes, not an Array of them: `grocery list` reads two dates per item.
        var text = text
        return text.withUTF8 { parse(utf8: $0[...]) }
    }

    /// A date of milliseconds since 1970 (a store's `date` column) as the seconds a predicate's
    /// dates are, exactly as the same instant written in ISO 8601 parses.
    public static func seconds(milliseconds: Int64) -> Double {
        let (whole, rest) = milliseconds.quotientAndRemainder(dividingBy: 1_000)
        return rest < 0 ? compose(seconds: whole - 1, micros: (rest + 1_000) * 1_000) : compose(seconds: whole, micros: rest * 1_000)
    }

    /// An ISO-8601 date (as ``parse(_:)`` reads it) as whole milliseconds since 1970, rounded
    /// down; nil when the text is no date or the instant is beyond ±2⁶³ ms.
    public static func milliseconds(parsing text: String) -> Int64? {
        guard let seconds = parse(text), seconds.isFinite, abs(seconds) < 9e15 else { return nil }
        let (whole, micros) = parts(seconds)
        return whole * 1_000 + micros / 1_000
    }

    private static func parse(utf8: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        var s = utf8
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
        var seconds = Int64(daysFromCivil(year: year, month: month, day: day)) * 86_400
        var micros: Int64 = 0
        if eat(UInt8(ascii: "T")) || eat(UInt8(ascii: "t")) || eat(UInt8(ascii: " ")) {
            guard let hour = digits(2), eat(UInt8(ascii: ":")), let minute = digits(2),
                  hour < 24, minute < 60 else { return nil }
            seconds += Int64(hour * 3600 + minute * 60)
            if eat(UInt8(ascii: ":")) {
                guard let second = digits(2), second < 61 else { return nil }
                seconds += Int64(second)
                if eat(UInt8(ascii: ".")) || eat(UInt8(ascii: ",")) {
                    // Microsecond precision: six digits, the seventh rounds, the rest are read and dropped.
                    var count = 0
                    var roundUp = false
                    while let b = s.first, b >= 48, b <= 57 {
                        if count < 6 { micros = micros * 10 + Int64(b - 48) }
                        else if count == 6 { roundUp = b >= 53 }
                        count += 1
                        s = s.dropFirst()
                    }
                    guard count > 0 else { return nil }
                    for _ in count..<max(count, 6) { micros *= 10 }
                    if roundUp { micros += 1 }
                }
            }
            if eat(UInt8(ascii: "Z")) || eat(UInt8(ascii: "z")) {
                // UTC
            } else if let signByte = s.first, signByte == UInt8(ascii: "+") || signByte == UInt8(ascii: "-") {
                s = s.dropFirst()
                guard let oh = digits(2) else { return nil }
                _ = eat(UInt8(ascii: ":"))
                guard let om = digits(2), oh < 24, om < 60 else { return nil }
                let offset = Int64(oh * 3600 + om * 60)
                seconds -= signByte == UInt8(ascii: "+") ? offset : -offset
            }
        }
        return s.isEmpty ? compose(seconds: seconds, micros: micros) : nil
    }

    /// Dates in predicates have microsecond precision, so that the printed form parses back to
    /// exactly the same value. Every date the parser makes goes through here.
    static func compose(seconds: Int64, micros: Int64) -> Double {
        Double(seconds) + Double(micros) / 1_000_000
    }

    static func parts(_ x: Double) -> (seconds: Int64, micros: Int64) {
        var whole = x.rounded(.down)
        var micros = ((x - whole) * 1_000_000).rounded()
        if micros >= 1_000_000 { whole += 1; micros = 0 }
        return (Int64(whole), Int64(micros))
    }

    /// `x` at microsecond precision.
    static func quantize(_ x: Double) -> Double {
        guard x.isFinite, abs(x) < 1e15 else { return x }
        let (seconds, micros) = parts(x)
        return compose(seconds: seconds, micros: micros)
    }

    /// `2026-11-22T10:00:00Z`, with up to six fraction digits when there is a fraction.
    public static func format(_ x: Double) -> String {
        let (seconds, micros) = parts(x)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (y, m, d) = civilFromDays(days)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if micros > 0 {
            var digits = pad(Int(micros), 6)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }

    /// Whether ``format(_:)`` followed by ``parse(_:)`` gives back exactly `x`.
    static func formatsExactly(_ x: Double) -> Bool {
        x.isFinite && x >= -62_135_596_800 && x < 253_402_300_800     // years 0001 to 9999
            && quantize(x) == x
    }

    /// Days in `month` (1–12) of `year` (proleptic Gregorian).
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    /// Days from 1970-01-01 to the date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date (year, month, day) `z0` days after 1970-01-01.
    public static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
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
