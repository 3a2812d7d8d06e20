/// How many items a set of changes added, changed and removed: what `grocery watch` says after
/// a reconnect ("while you were away: +2 ~1 −1").
public struct GroceryChangeTally: Sendable, Hashable, CustomStringConvertible {
    public var added = 0
    /// Renamed, retagged, image set or removed, in or out of conflict.
    public var changed = 0
    public var removed = 0

    public init(_ changes: [GroceryChange]) {
        for change in changes {
            switch change.kind {
            case .added: added += 1
            case .removed: removed += 1
            case .renamed, .retagged, .imageSet, .imageRemoved, .conflicted, .conflictResolved: changed += 1
            }
        }
    }

    public var isEmpty: Bool { added == 0 && changed == 0 && removed == 0 }

    /// `+2 ~1 −1`.
    public var description: String { "+\(added) ~\(changed) −\(removed)" }
}
