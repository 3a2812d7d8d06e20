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
/// | Ubiquity | `.ubiquity-save-PID-N` | a coordinated save being written, renamed over the item when complete |
/// | Ubiquity | `.ubiquity-kv` | the key-value store: one file per device (docs/kv-store.md; a directory) |
/// | Ubiquity | `.ubiquity-stores` | relational stores: each device's log segments (docs/stores.md; a directory) |
///
/// Conflict copies (`NAME.sync-conflict-…`) are not in this table: they are versions of an item.
public enum SyncEngineFiles {
    /// The names a sync engine receives a new version of `name` into before renaming it over
    /// `name` (Syncthing first deletes `name`, then renames: the watcher reads the two steps as one
    /// replace).
    public static func temporaryNames(for name: String) -> [String] {
        [".syncthing." + name + ".tmp", "~syncthing~" + name + ".tmp"]
    }

    /// Whether an entry named `name` is a sync engine's own.
    public static func isOwn(_ name: String) -> Bool {
        // Every name in the table starts with "." or "~": any other is decided by one byte.
        guard let first = name.utf8.first, first == UInt8(ascii: ".") || first == UInt8(ascii: "~") else { return false }
        switch name {
        case ".stfolder", ".stignore", ".stversions", ".ubiquity-kv", ".ubiquity-stores": return true
        default: break
        }
        return name.hasPrefix(".ubiquity-save-") || isTemporary(name)
    }

    /// Whether `name` is a file a sync engine is receiving (one of ``temporaryNames(for:)``).
    public static func isTemporary(_ name: String) -> Bool {
        name.hasSuffix(".tmp") && (name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~"))
    }
}
