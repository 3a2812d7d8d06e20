public import Foundation
import Glibc

/// Times as both tools print them for people: in the local time zone (TZ), to the second.
public enum LocalTime {
    /// `2026-11-22 10:00:03`.
    public static func dateTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// `10:00:03`, for live update lines.
    public static func clock(_ date: Date) -> String { String(dateTime(date).suffix(8)) }
}
