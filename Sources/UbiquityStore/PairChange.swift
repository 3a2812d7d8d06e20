/// Relating or unrelating a pair of rows (`from` in the relationship's `from` table, `to` in its
/// `to` table), at the generations of the two rows the writer saw.
public struct PairChange: Sendable, Hashable {
    public let relationship: String
    public let from: RowID
    public let fromGeneration: UInt64
    public let to: RowID
    public let toGeneration: UInt64
    public let clock: HLC
}
