public import UbiquityIndex

/// What a subscriber of a live query holds: the gathered results with every update applied.
/// Tests compare it with a fresh query ("live equals rescan").
public struct ClientView: Sendable {
    public var items: [ItemIdentity: ResultItem] = [:]

    public init(_ results: some Collection<ResultItem>) {
        for item in results { items[item.identity] = item }
    }

    /// Applies an update; returns a description of anything impossible in it (an unknown
    /// removal, a second `added`, an `oldPath` the subscriber never saw, a move without its
    /// `oldPath`, an `added` item with one), else nil.
    public mutating func apply(_ delta: QueryDelta) -> String? {
        for item in delta.removed {
            guard items.removeValue(forKey: item.identity) != nil else { return "removed unknown \(item.path)" }
        }
        for item in delta.changed {
            guard let old = items[item.identity] else { return "changed unknown \(item.path)" }
            if let oldPath = item.oldPath, oldPath != old.path { return "oldPath \(oldPath) but client had \(old.path)" }
            if item.path != old.path && item.oldPath == nil { return "moved \(old.path) to \(item.path) without its oldPath" }
            items[item.identity] = item
        }
        for item in delta.added {
            guard items[item.identity] == nil else { return "added twice \(item.path)" }
            if let oldPath = item.oldPath { return "added \(item.path) with an oldPath \(oldPath)" }
            items[item.identity] = item
        }
        return nil
    }

    public var summary: Set<String> { summaryOf(Array(items.values)) }
}

/// Path and values of each result in a stable order (dictionaries print in random order).
public func summaryOf(_ results: some Collection<ResultItem>) -> Set<String> {
    Set(results.map { item in
        item.path + " " + item.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    })
}
