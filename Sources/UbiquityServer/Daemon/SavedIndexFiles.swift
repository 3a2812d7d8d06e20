/// The saved index's files as read at start (``IndexStore/read()``), until they are loaded.
struct SavedIndexFiles: Sendable {
    let snapshot: [UInt8]
    /// Nil: there is no journal.
    let journal: [UInt8]?
}
