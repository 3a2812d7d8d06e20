/// One change of a transaction, stamped with its clock reading and the row's generation.
public enum Change: Sendable, Hashable {
    /// A new row, or a row again after a delete (the next generation): the columns it sets.
    case insert(RowWrite)
    /// Columns of an existing row.
    case update(RowWrite)
    case delete(RowDeletion)
    /// Adds a pair to a relationship.
    case relate(PairChange)
    /// Removes a pair from a relationship.
    case unrelate(PairChange)

    public var clock: HLC {
        switch self {
        case .insert(let w), .update(let w): w.clock
        case .delete(let d): d.clock
        case .relate(let p), .unrelate(let p): p.clock
        }
    }
}
