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
            // Keys computed once: comparing lowercased strings inside the sort would allocate n log n times.
            return items.map { ($0.displayName.lowercased(), $0) }
                .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.id < $1.1.id }
                .map(\.1)
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
