/// One pair of a relationship: a row of its `from` table and a row of its `to` table.
public struct PairKey: Sendable, Hashable, Comparable {
    public let relationship: String
    public let from: RowID
    public let to: RowID

    public init(relationship: String, from: RowID, to: RowID) {
        self.relationship = relationship
        self.from = from
        self.to = to
    }

    public static func < (a: PairKey, b: PairKey) -> Bool {
        if a.relationship != b.relationship { return a.relationship.utf8.lexicographicallyPrecedes(b.relationship.utf8) }
        return (a.from, a.to) < (b.from, b.to)
    }
}
