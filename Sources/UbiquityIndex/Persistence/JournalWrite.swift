/// One journal record encoded and appended, and what came of it: on the engine, or on a
/// ``SideThread`` while the engine applies its batch (``QueryEngine/journalAlongsideEntries``),
/// read by the engine once the thread is joined.
///
/// Unchecked `Sendable`: the side thread is the only one to touch `written` and `bytes` until
/// ``SideThread/run(_:while:)`` returns, and the engine reads them only after that; the record
/// it encodes is a value the engine does not change meanwhile.
final class JournalWrite: @unchecked Sendable {
    private let record: IndexJournal.Record
    /// Whether the append succeeded.
    private(set) var written = false
    /// The record's length in bytes, framed.
    private(set) var bytes = 0

    init(_ record: IndexJournal.Record) { self.record = record }

    func append(to persistence: any IndexPersistence) {
        let encoded = IndexJournal.encode(record)
        bytes = encoded.count
        written = persistence.appendToJournal(encoded)
    }
}
