/// Where the engine keeps its saved index: the daemon's state directory (UbiquityServer's
/// `IndexStore`), or a test's memory. The engine decides what to write and when; this only writes.
public protocol IndexPersistence: Sendable {
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`), written into each snapshot.
    var bootID: String { get }

    /// Appends one framed journal record (``IndexJournal``). Called before any clock of the batch
    /// is handed out; a plain `write`, no `fsync` (a process crash keeps it, a power loss may not).
    ///
    /// - Returns: false when it could not be written. The saved index is then behind the clocks
    ///   handed out, so the implementation must make sure it is never loaded (delete it).
    func appendToJournal(_ record: [UInt8]) -> Bool

    /// Replaces the saved index with `snapshot` and starts an empty journal with `journalHeader`,
    /// so that no later moment sees the new snapshot with the old journal's records.
    func replace(snapshot: [UInt8], journalHeader: [UInt8]) throws
}
