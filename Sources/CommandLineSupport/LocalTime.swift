public import FoundationEssentials
import Glibc

/// Times as both tools print them for people: in the local time zone (TZ), to the second; and
/// the zone itself, which the C library's rules give (no Foundation `TimeZone`: its named zones
/// are ICU's, 34 MB of data in every binary).
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

    /// Makes `zone` (`UTC`, or a name from the zone database such as `Europe/Paris`) this
    /// process's local zone, for every later local time (`TZ` and `tzset`); false, changing
    /// nothing, for a name the database does not have (the C library would silently take it as UTC).
    /// Process-wide: for a command's `run()` before anything else reads the local time.
    public static func use(zone: String) -> Bool {
        guard zone == "UTC" || zone == "GMT" || isZoneFile(zone) else { return false }
        setenv("TZ", zone, 1)
        tzset()
        return true
    }

    /// A relative name (no empty, `.` or `..` component) of a file in the zone database
    /// (`TZDIR`, else /usr/share/zoneinfo) that starts as zone files do (`TZif`).
    static func isZoneFile(_ name: String) -> Bool {
        let components = name.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !name.isEmpty, !components.contains(where: { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) })
        else { return false }
        let directory = getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
        let fd = open(directory + "/" + name, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var magic = [UInt8](repeating: 0, count: 4)
        return read(fd, &magic, 4) == 4 && magic == Array("TZif".utf8)
    }
}
