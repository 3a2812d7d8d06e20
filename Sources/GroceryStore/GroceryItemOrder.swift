import FoundationEssentials

/// How `list` and `watch` order items.
public enum GroceryItemOrder: String, Sendable, CaseIterable {
    /// By display name, case-insensitively, then by id.
    case name
    /// Oldest first (items without a creation date last), then by id.
    case created

    public func sorted(_ items: some Sequence<GroceryItem>) -> [GroceryItem] {
        switch self {
        case .name:
            // Keys computed once (``GroceryNameSortKey``), and positions sorted rather than the
            // items, which are large to move.
            let items = Array(items)
            let keys = items.map { GroceryNameSortKey($0.displayName) }
            return items.indices
                .sorted {
                    let order = GroceryNameSortKey.compare(keys[$0], keys[$1])
                    return order != 0 ? order < 0 : items[$0].id < items[$1].id
                }
                .map { items[$0] }
        case .created:
            return items.sorted { a, b in
                switch (a.created, b.created) {
                case let (x?, y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.id < b.id
                }
            }
        }
    }
}
