/// A row's whole register, as the device that writes it holds it: what a device appends to its
/// own log when an import brings a row back that others may have shrunk to a floor
/// (docs/stores.md, "Tombstones shrink to floors").
///
/// Every device merges it with ``RowState/join(_:)``, a lattice join: merging it changes nothing
/// a device already has, and repairs of one row from several devices, in any order and any
/// number of times, give the same register.
public struct RowRepair: Sendable, Hashable {
    public let table: String
    public let row: RowID
    /// The register with its columns' original clocks, generations and bases.
    public let register: RowState

    public init(table: String, row: RowID, register: RowState) {
        self.table = table
        self.row = row
        self.register = register
    }

    public var ref: RowRef { RowRef(table: table, id: row) }
}
