/// An insert or an update of one row: column values written at one clock reading, at one
/// generation of the row (its per-row causal counter: an insert after a delete starts the next).
public struct RowWrite: Sendable, Hashable {
    public let table: String
    public let row: RowID
    /// The row's generation (1 for the first insert, one more for each re-insert after a delete).
    public let generation: UInt64
    public let clock: HLC
    public let columns: [ColumnWrite]

    public init(table: String, row: RowID, generation: UInt64, clock: HLC, columns: [ColumnWrite]) {
        self.table = table
        self.row = row
        self.generation = generation
        self.clock = clock
        self.columns = columns
    }
}
