/// What applying a segment did to the rows a client sees: the counterpart of Core Data's
/// import notification (`NSPersistentStoreDidImportUbiquitousContentChangesNotification`),
/// and more exact — which columns changed, which true conflicts were settled and how,
/// and which deletes met concurrent edits.
///
/// A row is *inserted* if it was not shown before and is now (also a row kept alive by an edit
/// after a delete had been imported), *deleted* if the reverse, *updated* if it is shown before
/// and after and a column or relationship end it shows changed. Every list is sorted.
public struct ImportResult: Sendable, Hashable {
    public var inserted: [RowRef] = []
    /// Each updated row with the columns and relationship ends (`tags`, `items`) that changed.
    public var updated: [RowRef: Set<String>] = [:]
    public var deleted: [RowRef] = []
    /// True conflicts settled by this import (the same column written on two devices).
    public var conflicts: [ColumnConflict] = []
    /// Deletes that met edits they had not seen, and how the policy settled each.
    public var contests: [DeleteContest] = []
    /// The segment's writer, when its clock was more than a minute ahead of this device's.
    public var clockSkew: ClockSkew?
    /// Rows this device must repair others with: the import brought them back, or changed their
    /// columns while they are back, and this device holds their columns. The caller appends
    /// their registers to its own log (``StoreReplica/repair(_:)``; docs/stores.md, "Tombstones
    /// shrink to floors"). Not something a client sees.
    public var repairs: [RowRef] = []

    public init() {}

    /// Whether the import changed nothing a client sees (a duplicate segment, say).
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && conflicts.isEmpty && contests.isEmpty
    }

    /// The updated rows in order.
    public var updatedRows: [RowRef] { updated.keys.sorted() }
}
