/// Relating or unrelating a pair of rows (`from` in the relationship's `from` table, `to` in its
/// `to` table), at the generations of the two rows the writer saw.
public struct PairChange: Sendable, Hashable {
    public let relationship: String
    public let from: RowID
    public let fromGeneration: UInt64
    public let to: RowID
    public let toGeneration: UInt64
    public let clock: HLC

    public init(relationship: String, from: RowID, fromGeneration: UInt64, to: RowID, toGeneration: UInt64, clock: HLC) {
        self.relationship = relationship
        self.from = from
        self.fromGeneration = fromGeneration
        self.to = to
        self.toGeneration = toGeneration
        self.clock = clock
    }
}
