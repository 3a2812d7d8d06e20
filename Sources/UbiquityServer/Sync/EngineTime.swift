import UbiquityPredicate

/// The sync engine's event times, exactly. Syncthing stamps an event in RFC 3339 with nine
/// fraction digits (`2026-11-25T18:32:41.190691525Z`); an item counts as indexed by the engine
/// only when an index event is no earlier than the item's change (``IndexedPaths``), and a scan
/// can log its event within the same millisecond as the write it indexed, so a time cut to the
/// millisecond could fall before the change and leave the item "not indexed" until the next full
/// read. Pure.
enum EngineTime {
    /// Nanoseconds since 1970 of an RFC 3339 time with up to nine fraction digits (more are read
    /// and dropped); nil for anything else or a time outside what 64 bits of nanoseconds hold.
    static func nanoseconds(parsing text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var whole = bytes[...], fraction: ArraySlice<UInt8> = []
        if let dot = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.firstIndex(of: UInt8(ascii: ",")) {
            var end = dot + 1
            while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
            guard end > dot + 1 else { return nil }
            fraction = bytes[(dot + 1)..<end]
            whole = ArraySlice(bytes[..<dot] + bytes[end...])
        }
        // Without a fraction the time is whole seconds, which milliseconds hold exactly.
        guard let milliseconds = ISODate.milliseconds(parsing: String(decoding: whole, as: UTF8.self)) else { return nil }
        var nanoseconds: Int64 = 0
        for index in 0..<9 {
            let digit = index < fraction.count ? Int64(fraction[fraction.startIndex + index] - UInt8(ascii: "0")) : 0
            nanoseconds = nanoseconds * 10 + digit
        }
        let (scaled, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        let (total, overflowAgain) = scaled.addingReportingOverflow(nanoseconds)
        return overflow || overflowAgain ? nil : total
    }
}
