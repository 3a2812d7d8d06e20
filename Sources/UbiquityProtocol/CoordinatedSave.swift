/// The names a coordinated save writes (docs/versions.md), for every client that takes part.
///
/// A save writes its bytes to ``temporaryName(pid:attempt:)`` in the item's directory, then renames
/// it over the item. When the item changed since the writer read it, the bytes go to
/// ``conflictName(of:savedAt:device:)`` instead: a conflict version of the item, which the daemon
/// attaches to it (`hasUnresolvedConflicts`) like a sync engine's conflict copy.
public enum CoordinatedSave {
    /// A hidden name no daemon ever reports as an item, unique per process and attempt.
    public static func temporaryName(pid: Int32, attempt: Int) -> String {
        ".ubiquity-save-\(pid)-\(attempt)"
    }

    /// `Item.ubiquity-conflict-20261122-103000-laptop.txt` for `Item.txt`: the extension stays
    /// last so the copy opens like the item. `savedAt` is `YYYYMMDD-HHMMSS` (UTC).
    public static func conflictName(of name: String, savedAt: String, device: String) -> String {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[$0...]) } ?? ""
        return stem + ".ubiquity-conflict-" + savedAt + "-" + deviceLabel(device) + ext
    }

    /// A device name as it may appear in a conflict name: letters, digits, `_` and `-`, at most 40.
    public static func deviceLabel(_ device: String) -> String {
        let allowed = device.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
                ? Character(scalar) : "-"
        }
        let label = String(allowed.prefix(40))
        return label.isEmpty ? "device" : label
    }
}
