import UbiquityStore

/// Where a store's files are in a container, and which names in them are what (docs/stores.md,
/// "On disk"). Pure: names only.
///
/// ```
/// <container>/.ubiquity-stores/<store>/logs/<device>/<sequence>   immutable segments, 1, 2, 3, …
/// <container>/.ubiquity-stores/<store>/acks/<device>              how far <device> imported each device
/// <container>/.ubiquity-stores/<store>/snapshots/<device>/<sequence>  <device>'s merged state after its segment <sequence>
/// ```
///
/// `.ubiquity-stores` is one of the sync engines' own names (`SyncEngineFiles`), like the
/// key-value store's `.ubiquity-kv`: never an item of a metadata query, nor anything below it.
public enum StoreLayout {
    /// The folder of every store of a container, in its top level.
    public static let folder = ".ubiquity-stores"
    public static let logs = "logs"
    public static let acks = "acks"
    public static let snapshots = "snapshots"

    /// A file of a device's own in a store's folder: a log segment or a snapshot.
    public enum Kind: Sendable, Hashable { case segment, snapshot }

    /// A segment's (and a snapshot's) file name: its sequence number in decimal, no leading zeros.
    public static func segmentName(_ sequence: UInt64) -> String { String(sequence) }

    /// The sequence number a segment's file name stands for; nil for any other name (a
    /// temporary `.N.….writing`, a sync engine's `.syncthing.N.tmp`, `007`).
    public static func sequence(ofSegmentNamed name: String) -> UInt64? {
        guard let first = name.utf8.first, first != UInt8(ascii: "0"), name.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(name)
    }

    /// Whether `name` can be a store's name: the rules of a table's name (1 to 64 of
    /// `A-Z a-z 0-9 _`, not starting with a digit), so it is one safe path component.
    public static func isStoreName(_ name: String) -> Bool { Schema.isName(name) }
}
