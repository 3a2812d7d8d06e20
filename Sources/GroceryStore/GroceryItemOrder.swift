import FoundationEssentials

/// How `list` and `watch` order items.
public enum GroceryItemOrder: String, Sendable, CaseIterable {
    /// By display name, case-insensitively, then by id.
    case name
    /// Oldest first (items without a creation date last), then by id.
    case created

    public func sorted(_ items: some Sequence<GroceryItem>) -> [GroceryItem] {
        var items = Array(items)
        sort(&items)
        return items
    }

    /// Sorts `items` in place: given an array no one else holds, the items are only moved, never
    /// copied (a copy retains each of an item's strings, a cost that showed in `grocery list` of
    /// 10,000 items, once to copy and once to free the unsorted array).
    public func sort(_ items: inout [GroceryItem]) {
        let order: [Int]
        switch self {
        case .name:
            // Keys computed once (``GroceryNameSortKey``), and positions sorted rather than the
            // items, which are large to move.
            let keys = items.map { GroceryNameSortKey($0.displayName) }
            order = items.indices.sorted {
                let order = GroceryNameSortKey.compare(keys[$0], keys[$1])
                return order != 0 ? order < 0 : items[$0].id < items[$1].id
            }
        case .created:
            order = items.indices.sorted { a, b in
                switch (items[a].created, items[b].created) {
                case let (x?, y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return items[a].id < items[b].id
                }
            }
        }
        Self.permute(&items, into: order)
    }

    /// Rearranges `items` so that position `i` holds what was at `order[i]` (a permutation),
    /// moving each item once along each cycle of it. By moves in the buffer, not `swapAt`, whose
    /// copies retain and release every string of both items (5.7 ms for 10,000 items).
    static func permute<Item>(_ items: inout [Item], into order: [Int]) {
        precondition(order.count == items.count, "a permutation of every position")
        var placed = [Bool](repeating: false, count: order.count)
        items.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for start in order.indices where !placed[start] {
                placed[start] = true
                // What was at `start` goes where the cycle closes; each position on the way takes
                // the item its order names, which moves out and leaves its own position free.
                let carried = (base + start).move()
                var current = start
                while order[current] != start {
                    let next = order[current]
                    precondition(!placed[next], "a permutation of every position")
                    (base + current).initialize(to: (base + next).move())
                    placed[next] = true
                    current = next
                }
                (base + current).initialize(to: carried)
            }
        }
    }
}
