public import UbiquityProtocol
public import UbiquityStore

/// Rows of a ``PersistentStore`` changed elsewhere — imported from another device's segments, or
/// saved by another connection (Core Data's `NSPersistentStoreDidImportUbiquitousContentChanges`
/// notification, from the daemon's `store.changed`). This store's own saves are not reported.
///
/// When ``isAll`` is true the daemon could not say which rows (more changed than it keeps for a
/// subscriber that does not read, or the store's schema was upgraded): any row may have changed,
/// fetch again; the row lists are then empty.
public struct StoreImportNotification: Sendable, Hashable {
    /// An updated row and the columns (and relationship ends) that changed; nil: any may have.
    public struct UpdatedRow: Sendable, Hashable {
        public var row: RowRef
        public var columns: [String]?

        public init(row: RowRef, columns: [String]?) {
            self.row = row
            self.columns = columns
        }
    }

    public var inserted: [RowRef]
    public var updated: [UpdatedRow]
    public var deleted: [RowRef]
    /// Any row may have changed: fetch again.
    public var isAll: Bool
    /// The devices the changes came from (this device's own for another connection's save), sorted.
    public var devices: [String]
    /// True conflicts the import settled: one column written on two devices, and which won.
    public var conflicts: [StoreChange.Conflict]
    /// Deletes that met an edit they had not seen, and whether the row was kept.
    public var contests: [StoreChange.Contest]
    /// The store's clock token after these changes.
    public var clock: String

    public init(inserted: [RowRef] = [], updated: [UpdatedRow] = [], deleted: [RowRef] = [], isAll: Bool = false,
                devices: [String] = [], conflicts: [StoreChange.Conflict] = [], contests: [StoreChange.Contest] = [], clock: String) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.isAll = isAll
        self.devices = devices
        self.conflicts = conflicts
        self.contests = contests
        self.clock = clock
    }

    /// The notification of a `store.changed` event. A row address this client cannot read makes
    /// the notification "any row" (``isAll``): nothing that changed is left unsaid.
    public init(_ change: StoreChange) {
        self.init(devices: change.devices, conflicts: change.conflicts, contests: change.contests, clock: change.clock)
        guard let inserted = change.inserted, let updated = change.updated, let deleted = change.deleted else {
            isAll = true
            return
        }
        let insertedRows = inserted.compactMap(Self.row)
        let deletedRows = deleted.compactMap(Self.row)
        let updatedRows = updated.compactMap { entry in Self.row(entry.row).map { UpdatedRow(row: $0, columns: entry.columns) } }
        guard insertedRows.count == inserted.count, deletedRows.count == deleted.count, updatedRows.count == updated.count else {
            isAll = true
            return
        }
        self.inserted = insertedRows
        self.updated = updatedRows
        self.deleted = deletedRows
    }

    /// Any row may have changed (an observer that fell behind is told this instead of what it missed).
    static func all(clock: String, devices: [String] = []) -> StoreImportNotification {
        StoreImportNotification(isAll: true, devices: devices, clock: clock)
    }

    /// The ids of the rows of `table` that were inserted, updated or deleted (empty when ``isAll``).
    public func rows(of table: String) -> (inserted: [String], updated: [String], deleted: [String]) {
        (inserted.filter { $0.table == table }.map(\.id.description), updated.filter { $0.row.table == table }.map(\.row.id.description),
         deleted.filter { $0.table == table }.map(\.id.description))
    }

    /// The row an address (`ubiquity-store://<container>/<store>/<table>/<id>`) names; nil for
    /// anything that is not a row address.
    static func row(_ address: String) -> RowRef? {
        StoreRowURL(address).map { RowRef(table: $0.table, id: $0.id) }
    }
}
