import UbiquityIndex

/// What a listing says of one entry, comparable: its parent position, name and status. The crawl
/// tests compare listings made in two ways (a stat helper, a subtree helper) row by row.
struct ListingRow: Equatable, CustomStringConvertible {
    var parent: Int32
    var name: String
    var stat: FileStat
    var description: String { "\(parent)/\(name) \(stat.kind) \(stat.size)" }

    /// Every entry's row, in the listing's order.
    static func rows(_ entries: CrawlEntries) -> [ListingRow] {
        entries.map { ListingRow(parent: $0.parent, name: $0.name, stat: $0.stat) }
    }
}
