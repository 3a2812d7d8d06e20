import UbiquityPredicate

/// The text form of a stored date: `YYYY-MM-DDTHH:MM:SS[.f{1,3}]Z` (UTC, years 0001–9999), held as
/// whole milliseconds since 1970 so that it reads back exactly as it was written.
public enum KVDate {
    /// Milliseconds since 1970-01-01T00:00:00Z of the earliest and latest dates accepted.
    public static let range: ClosedRange<Int64> = -62_135_596_800_000 ... 253_402_300_799_999

    /// Parses the one accepted form; nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 24, b.last == UInt8(ascii: "Z") else { return nil }
        func number(_ at: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in at ..< at + count {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int64(b[i] - 48)
            }
            return value
        }
        func sep(_ at: Int, _ c: Character) -> Bool { b[at] == c.asciiValue! }
        guard let year = number(0, 4), sep(4, "-"), let month = number(5, 2), sep(7, "-"), let day = number(8, 2),
              sep(10, "T"), let hour = number(11, 2), sep(13, ":"), let minute = number(14, 2), sep(16, ":"),
              let second = number(17, 2), year >= 1, (1...12).contains(month), hour < 24, minute < 60, second < 60,
              day >= 1, day <= Int64(ISODate.daysIn(month: Int(month), year: Int(year))) else { return nil }
        var millis: Int64 = 0
        if b.count > 20 {
            let digits = b.count - 21
            guard sep(19, "."), digits >= 1, let fraction = number(20, digits) else { return nil }
            millis = fraction * (digits == 1 ? 100 : digits == 2 ? 10 : 1)
        } else if b.count != 20 {
            return nil
        }
        let days = Int64(ISODate.daysFromCivil(year: Int(year), month: Int(month), day: Int(day)))
        return ((days * 86_400 + hour * 3600 + minute * 60 + second) * 1000) + millis
    }

    /// The canonical text: always three fraction digits. `milliseconds` must be in ``range``.
    public static func format(_ milliseconds: Int64) -> String {
        let clamped = min(max(milliseconds, range.lowerBound), range.upperBound)
        let (seconds, millis) = floorDivide(clamped, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (y, m, d) = ISODate.civilFromDays(Int(days))
        let (year, month, day) = (Int64(y), Int64(m), Int64(d))
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):"
            + "\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
