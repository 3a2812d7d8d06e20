/// What a client asks a store to do; ``StoreReplica/commit(_:wall:)`` turns a list of them into
/// one transaction's stamped ``Change``s.
public enum StoreOperation: Sendable, Hashable {
    /// A new row. `id` is required for ordinary tables (make it with ``RowID/random(using:)``)
    /// and derived from the key for tables unique by meaning (give nil, or the derived id);
    /// inserting a row unique by meaning that exists updates it.
    case insert(table: String, id: RowID?, values: [String: StoreValue])
    /// Columns of an existing row; a column of a unique key may change only in ways its folded
    /// form does not (`mall` to `Mall`), and then every key column must be given.
    case update(table: String, id: RowID, values: [String: StoreValue])
    case delete(table: String, id: RowID)
    /// Adds the pair (`from`, `to`); nothing if it is there.
    case relate(relationship: String, from: RowID, to: RowID)
    /// Removes the pair; nothing if it is not there.
    case unrelate(relationship: String, from: RowID, to: RowID)
}
