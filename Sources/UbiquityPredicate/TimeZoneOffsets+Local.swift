import Glibc

extension TimeZoneOffsets {
    /// The process's zone as the C library knows it: `TZ` when set, else `/etc/localtime`, with its
    /// daylight-saving rules (`localtime_r`'s `tm_gmtoff`). An instant the C library cannot convert
    /// (beyond its years) is taken as UTC.
    public static let local = TimeZoneOffsets(name: "local") { instant in
        var seconds = time_t(truncatingIfNeeded: instant)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }
}
