import UbiquityProtocol

/// `--expires` of `ubiq publish`: a duration (`3600`, `90s`, `30m`, `12h`, `7d`) or an ISO-8601
/// date (`2026-12-01T12:00:00Z`). Pure.
enum ExpiryText {
    static func parse(_ text: String) -> ItemPublish.Expiry? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text), unit = 1
        if let last = text.last, let scale = units[last] {
            digits = text.dropLast()
            unit = scale
        }
        if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let count = Int(digits) else { return nil }
            let (seconds, overflow) = count.multipliedReportingOverflow(by: unit)
            return overflow ? nil : .after(seconds: seconds)
        }
        return ISO8601.parse(text).map { .at($0) }
    }
}
