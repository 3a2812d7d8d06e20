/// How a daemon goes on with the journal of the saved index it restored, instead of writing a
/// snapshot anew before its first batch (docs/architecture.md, "The saved index"): the records
/// the restore itself made (containers added to or removed from the configuration) and every
/// batch after them go to it, before their clocks are handed out.
public enum JournalContinuation: Sendable, Equatable {
    /// The journal read goes on, appended to: cut to `length` bytes first (a torn last record is
    /// left out, so the records appended follow the whole ones). Its header names `journalOf`:
    /// the snapshot's own, or the one the snapshot continues. Used for a snapshot that is not a
    /// clean shutdown's (never trusted in another boot), or a journal whose header names this boot.
    case append(journalOf: UInt64, length: UInt64)
    /// A new journal for snapshot `snapshotID`: `header` (naming this boot), the records of the
    /// journal read (`carried`), then the records after them; it replaces the file durably (written,
    /// `fsync`-ed, renamed, the folder `fsync`-ed) before any clock is handed out. Used after a
    /// clean shutdown's final snapshot, which is trusted across a reboot only while its journal
    /// says no daemon went on from it: this one says that one did, in this boot.
    case fresh(snapshotID: UInt64, header: [UInt8], carried: [UInt8])

    /// The snapshot the journal's header names (what the next snapshot continues).
    public var journalOf: UInt64 {
        switch self {
        case .append(let id, _): id
        case .fresh(let id, _, _): id
        }
    }
}
