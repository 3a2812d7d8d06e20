/// Where the engine keeps its saved index: the daemon's state directory (UbiquityServer's
/// `IndexStore`), or a test's memory. The engine decides what to write and when; this only writes.
public protocol IndexPersistence: Sendable {
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`), written into each snapshot.
    var bootID: String { get }

    /// Appends one framed journal record (``IndexJournal``). Called before any clock of the batch
    /// is handed out; a plain `write`, no `fsync` (a process crash keeps it, a power loss may not).
    /// Between ``beginSnapshot()`` and the end of ``replace(snapshot:journalHeader:)`` the record
    /// is also kept for the new snapshot's journal (even when no journal is open).
    ///
    /// - Returns: false when it could not be written. The saved index is then behind the clocks
    ///   handed out, so the implementation must make sure it is never loaded (delete it).
    func appendToJournal(_ record: [UInt8]) -> Bool

    /// A snapshot is taken now: from here on every appended record is also kept for the journal
    /// that ``replace(snapshot:journalHeader:)`` starts (they come after the snapshot's moment).
    ///
    /// - Returns: the length in bytes of the journal open now (the new snapshot continues it from
    ///   there until its own journal exists), or nil when none is open.
    func beginSnapshot() -> UInt64?

    /// Replaces the saved index with `snapshot` and starts its journal: `journalHeader` followed
    /// by every record appended since ``beginSnapshot()``, so that no moment sees the new snapshot
    /// without the records after it (until the new journal is in place, the old one holds them).
    /// Blocks (encoding's output is written and `fsync`-ed): called through ``runBlocking(_:)``.
    func replace(snapshot: [UInt8], journalHeader: [UInt8]) throws

    /// After a restore, before any batch: goes on with the saved index's journal as
    /// `continuation` says (cut to its whole records and appended to, or replaced durably by a
    /// new one), `records` appended. From then on ``appendToJournal(_:)`` appends after them, and
    /// ``beginSnapshot()`` says where the journal stands. Blocks (a fresh journal is `fsync`-ed):
    /// called at start, before the engine runs.
    ///
    /// - Throws: when it could not; the implementation must then make sure the saved index is
    ///   never loaded (delete it), as its clocks are about to go on without it.
    func continueJournal(_ continuation: JournalContinuation, records: [UInt8]) throws

    /// Whether ``readSnapshot(at:into:)`` reads: the engine then keeps no copy of a written
    /// snapshot's bytes, and reads the pieces that did not change back from the file for the next
    /// one (each checked against its CRC-32). Default false: the copy stays in memory.
    var readsSnapshotBack: Bool { get }

    /// Fills `destination` with the bytes at `offset` of the snapshot the last successful
    /// ``replace(snapshot:journalHeader:)`` wrote; false when they cannot be read (the files were
    /// removed since, or it is shorter). Called through ``runBlocking(_:)``.
    func readSnapshot(at offset: Int, into destination: UnsafeMutableRawBufferPointer) -> Bool

    /// Runs `work` where blocking is allowed — a thread of the persistence's, never the engine's
    /// actor nor Swift's shared pool — and returns its result.
    func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
    /// Keeps the answers a clean shutdown remembers (``RememberedAnswers``), written after its
    /// final snapshot; a failure costs only the answers (the next start loads the index first).
    func remember(answers: [UInt8])
}

extension IndexPersistence {
    public func remember(answers: [UInt8]) {}
    public var readsSnapshotBack: Bool { false }
    public func readSnapshot(at offset: Int, into destination: UnsafeMutableRawBufferPointer) -> Bool { false }
}
