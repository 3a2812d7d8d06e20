/// What a store keeps of one pair: the winning relate or unrelate, at the row generations its
/// writer saw. A later generation of either row wins, then a later clock reading; the pair is
/// shown only while both rows are alive at exactly those generations, so a row deleted and
/// inserted again starts with no pairs.
public struct PairState: Sendable, Hashable {
    public let present: Bool
    public let fromGeneration: UInt64
    public let toGeneration: UInt64
    public let clock: HLC

    public init(present: Bool, fromGeneration: UInt64, toGeneration: UInt64, clock: HLC) {
        self.present = present
        self.fromGeneration = fromGeneration
        self.toGeneration = toGeneration
        self.clock = clock
    }

    /// The merge order: `from`'s generation, then `to`'s, then the clock reading.
    public func precedes(_ other: PairState) -> Bool {
        if fromGeneration != other.fromGeneration { return fromGeneration < other.fromGeneration }
        if toGeneration != other.toGeneration { return toGeneration < other.toGeneration }
        if clock != other.clock { return clock < other.clock }
        // A reused reading (see ColumnState.precedes): the relate wins, the same way everywhere.
        return !present && other.present
    }
}
