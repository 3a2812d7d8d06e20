/// A delete of one row at one generation, with what the deleting device had seen of the row's
/// writes at that generation: a write it had not seen is concurrent with the delete.
public struct RowDeletion: Sendable, Hashable {
    public let table: String
    public let row: RowID
    public let generation: UInt64
    public let clock: HLC
    /// The latest write of each device to the row (at `generation`) the deleting device had seen.
    public let seen: VersionVector
}
