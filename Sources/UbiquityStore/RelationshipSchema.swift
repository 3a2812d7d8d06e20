/// A to-many relationship both ways, kept as a set of pairs (a row of `from`, a row of `to`):
/// Grocery's `items.tags` with its inverse `tags.items`. Each end's name reads as a column of its
/// table in changes and imports (an item whose tags changed is updated in `tags`).
public struct RelationshipSchema: Sendable, Hashable {
    /// The name at the `from` end (`tags`), also the relationship's name in segments.
    public let name: String
    public let from: String
    public let to: String
    /// The name at the `to` end (`items`).
    public let inverse: String

    public init(_ name: String, from: String, to: String, inverse: String) {
        self.name = name
        self.from = from
        self.to = to
        self.inverse = inverse
    }
}
