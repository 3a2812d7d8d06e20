/// A conflict copy's name, read: which item it is a version of, and what the sync engine says
/// about who saved it and when. Pure.
///
/// | engine | form | original |
/// |---|---|---|
/// | Syncthing | `Item.sync-conflict-20261122-034428-NOFER4Z.txt` | `Item.txt` |
/// | Syncthing | `Item_2.sync-conflict-20261122-034428-NOFER4Z` | `Item_2` |
/// | Dropbox-style | `Notes (conflicted copy 2026-11-22).txt`, `Notes (Ann's conflicted copy).txt` | `Notes.txt` |
/// | Dropbox-style | `Notes (Case Conflict).txt`, `Notes (Case Conflict 1).txt` | `Notes.txt` |
/// | Ubiquity (a stale coordinated save) | `Item.ubiquity-conflict-20261122-034428-laptop.txt` | `Item.txt` |
public struct ConflictCopyName: Sendable, Hashable {
    /// The name of the item this is a version of.
    public let original: String
    /// The saving device as the engine names it (Syncthing's short device id, the host of a
    /// stale coordinated save), when it does.
    public let device: String?
    /// `YYYYMMDD-HHMMSS` as Syncthing writes it, when the name carries it.
    public let savedAt: String?

    /// The parts of `name`, or nil when it is not a conflict copy.
    public static func parse(_ name: String) -> ConflictCopyName? {
        let bytes = name.utf8
        // The cheap reject first: this runs for every entry the index inserts.
        guard bytes.count > 12, bytes.contains(UInt8(ascii: "-")) || bytes.contains(UInt8(ascii: "(")) else { return nil }
        if let match = name.wholeMatch(of: /(.+)\.sync-conflict-(\d{8}-\d{6})-([A-Z0-9]{7})(\.[^.]*)?/) {
            return ConflictCopyName(original: String(match.1) + String(match.4 ?? ""), device: String(match.3),
                                    savedAt: String(match.2))
        }
        if let match = name.wholeMatch(of: /(.+)\.ubiquity-conflict-(\d{8}-\d{6})-([A-Za-z0-9_-]{1,40})(\.[^.]*)?/) {
            return ConflictCopyName(original: String(match.1) + String(match.4 ?? ""), device: String(match.3),
                                    savedAt: String(match.2))
        }
        if let match = name.wholeMatch(of: /(.+) \((?:[^()]*'s )?conflicted copy[^()]*\)(\.[^.]*)?/) {
            return ConflictCopyName(original: String(match.1) + String(match.2 ?? ""), device: nil, savedAt: nil)
        }
        if let match = name.wholeMatch(of: /(.+) \(Case Conflict(?: \d+)?\)(\.[^.]*)?/) {
            return ConflictCopyName(original: String(match.1) + String(match.2 ?? ""), device: nil, savedAt: nil)
        }
        return nil
    }
}
