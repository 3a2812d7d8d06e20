/// A conflict copy's name, read: which item it is a version of, and what the sync engine says
/// about who saved it and when. Pure.
///
/// | engine | form | original |
/// |---|---|---|
/// | Syncthing | `Item.sync-conflict-20261122-034428-NOFER4Z.txt` | `Item.txt` |
/// | Syncthing | `Item_2.sync-conflict-20261122-034428-NOFER4Z` | `Item_2` |
/// | Dropbox-style | `Notes (conflicted copy 2026-11-22).txt`, `Notes (Ann's conflicted copy).txt` | `Notes.txt` |
/// | Ubiquity (a stale coordinated save) | `Item.ubiquity-conflict-20261122-034428-laptop.txt` | `Item.txt` |
///
/// Dropbox's `Notes (Case Conflict).txt` is not among them: it is another file, whose name differed
/// from `Notes.txt` only by case on a case-insensitive system, so it is an ordinary item.
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
        // The cheap reject first: this runs for every entry the index inserts (and a restored
        // index derives), and a regex literal is parsed anew on every evaluation — with a looser
        // test, a tree of UUID-named files spent most of its crawl in the regex parser.
        guard name.utf8.count > 12, Self.markers.contains(where: { Self.utf8(of: name, contains: $0) }) else { return nil }
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
        return nil
    }

    /// What every form above contains.
    private static let markers: [[UInt8]] = [".sync-conflict-", ".ubiquity-conflict-", "conflicted copy"].map { Array($0.utf8) }

    private static func utf8(of name: String, contains marker: [UInt8]) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count >= marker.count else { return false }
            for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
                if bytes[start..<(start + marker.count)].elementsEqual(marker) { return true }
            }
            return false
        }
    }
}
