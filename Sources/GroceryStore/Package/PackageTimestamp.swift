import FoundationEssentials

/// `items.json` dates: ISO 8601 in UTC with milliseconds, `2026-11-22T10:00:00.123Z`, read back exactly.
enum PackageTimestamp {
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    static func rounded(_ date: Date) -> Date { self.date(milliseconds: milliseconds(date)) }

    static func encode(_ date: Date) -> String {
        let total = milliseconds(date)
        let (seconds, millis) = (floorDivide(total, 1000), total - floorDivide(total, 1000) * 1000)
        let whole = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds)))
        let fraction = String(millis + 1000).dropFirst()  // always three digits
        return whole.dropLast() + "." + fraction + "Z"
    }

    static func decode(_ text: String, at path: [any CodingKey]) throws -> Date {
        var whole = Substring(text)
        var millis: Int64 = 0
        if let dot = text.firstIndex(of: "."), text.hasSuffix("Z") {
            let digits = text[text.index(after: dot)..<text.index(before: text.endIndex)]
            guard (1...3).contains(digits.count), let value = Int64(digits), digits.allSatisfy(\.isASCII) else {
                throw badDate(text, at: path)
            }
            millis = value * [100, 10, 1][digits.count - 1]
            whole = text[..<dot] + "Z"
        }
        guard let seconds = try? Date.ISO8601FormatStyle().parse(String(whole)) else { throw badDate(text, at: path) }
        return date(milliseconds: Int64(seconds.timeIntervalSince1970.rounded()) * 1000 + millis)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private static func badDate(_ text: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "'\(text)' is not a date like 2026-11-22T10:00:00.123Z"))
    }
}
