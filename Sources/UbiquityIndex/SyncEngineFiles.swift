/// The files a sync engine (or a coordinated save) keeps inside a replicated container for itself: never items, never
/// results, with or without hidden files asked for, and never part of a package's size. Below a
/// directory listed here, nothing is an item either.
///
/// | engine | name | what it is |
/// |---|---|---|
/// | Syncthing | `.syncthing.NAME.tmp` | a file being received, renamed into place when complete |
/// | Syncthing | `~syncthing~NAME.tmp` | the same, on file systems where a leading dot is awkward |
/// | Syncthing | `.stfolder` | the marker that the folder is present (a directory, or an empty file in old versions) |
/// | Syncthing | `.stignore` | the folder's ignore patterns |
/// | Syncthing | `.stversions` | old versions kept by file versioning (a directory) |
/// | Ubiquity | `.ubiquity-save-NAME-PID` | a coordinated save being written, renamed over `NAME` when complete |
///
/// Conflict copies (`NAME.sync-conflict-…`) are not in this table: they are versions of an item.
public enum SyncEngineFiles {
    /// Whether an entry named `name` is a sync engine's own.
    public static func isOwn(_ name: String) -> Bool {
        switch name {
        case ".stfolder", ".stignore", ".stversions": return true
        default: break
        }
        if name.hasPrefix(".ubiquity-save-") { return true }
        guard name.hasSuffix(".tmp") else { return false }
        return name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~")
    }
}
