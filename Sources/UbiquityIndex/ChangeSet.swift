/// What one batch did to the index, item by item (each item at most once).
public struct ChangeSet: Sendable {
    public enum Kind: Sendable, Hashable { case inserted, updated, removed }

    public struct Change: Sendable {
        public let id: ItemID
        public internal(set) var kind: Kind
        /// The item before the batch (updated and removed items).
        public internal(set) var before: FrozenItem?
        /// The path before the batch, when a rename changed it.
        public internal(set) var oldPath: String?
    }

    public internal(set) var changes: [ItemID: Change] = [:]
    /// Containers whose items changed, by index.
    public internal(set) var containers: Set<Int> = []

    public var isEmpty: Bool { changes.isEmpty }
    public var count: Int { changes.count }
}
