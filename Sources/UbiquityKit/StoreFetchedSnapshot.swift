/// The rows of a live fetch (``StoreFetchedResults``) at one moment, and what changed since the
/// snapshot before: rows that entered the result set, rows in it whose values (or related ids)
/// changed, and rows that left it, as they were. Each list in the request's order.
public struct StoreFetchedSnapshot: Sendable, Hashable {
    /// Every row, in the request's order: what a fresh fetch returns.
    public var rows: [StoreRow]
    public var added: [StoreRow]
    public var changed: [StoreRow]
    public var removed: [StoreRow]
    /// The store's clock token of these rows.
    public var clock: String
    /// The first snapshot: the rows as gathered (all of them are in ``added``).
    public var isInitial: Bool

    public init(rows: [StoreRow], added: [StoreRow], changed: [StoreRow], removed: [StoreRow], clock: String, isInitial: Bool) {
        self.rows = rows
        self.added = added
        self.changed = changed
        self.removed = removed
        self.clock = clock
        self.isInitial = isInitial
    }
}
