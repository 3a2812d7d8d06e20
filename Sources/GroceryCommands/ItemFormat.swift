import FoundationEssentials
import GroceryStore

/// How items and changes look in tables, lines and JSON.
enum ItemFormat {
    /// The `list` table: ID and NAME, plus IMAGE in package mode and TAGS in store mode.
    static func table(_ items: [GroceryItem], shortIDs: [GroceryItemID: String], format: GroceryStorageFormat) -> String {
        let header = switch format {
        case .files: ["ID", "NAME"]
        case .package: ["ID", "IMAGE", "NAME"]
        case .relational: ["ID", "TAGS", "NAME"]
        }
        let rows = items.map { item -> [String] in
            let id = shortIDs[item.id] ?? item.id.uuidString
            let name = Output.oneLine(item.displayName) + (item.inConflict ? "  " + Output.styled("⚠ in conflict", .red) : "")
                + (item.sync.map { "  " + Output.styled($0 == .notUploaded ? "↑ " + $0.text : "↓ " + $0.text, .yellow) } ?? "")
            return switch format {
            case .files: [id, name]
            case .package: [id, item.image?.rawValue ?? "-", name]
            case .relational: [id, tagList(item.tags), name]
            }
        }
        return Output.table(header: header, rows: rows, styles: [.yellow])
    }

    /// Tags as the table shows them: `mall, green grocer`, or `-` for none.
    static func tagList(_ tags: [String]) -> String { tags.isEmpty ? "-" : tags.map(Output.oneLine).joined(separator: ", ") }

    /// One line of `list --json`, and the items of `watch --json`'s gathered line. `tags` only in store mode.
    struct JSONItem: Encodable {
        let item: GroceryItem
        let shortID: String
        var withTags = false

        enum Keys: String, CodingKey { case id, shortID, name, displayName, created, modified, image, truncated, inConflict, tags, sync }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(item.id.uuidString, forKey: .id)
            try c.encode(shortID, forKey: .shortID)
            try c.encode(item.name, forKey: .name)
            try c.encode(item.displayName, forKey: .displayName)
            try c.encode(item.created.map(Output.iso), forKey: .created)
            try c.encode(item.modified.map(Output.iso), forKey: .modified)
            try c.encode(item.image?.rawValue, forKey: .image)
            try c.encode(item.isTruncated, forKey: .truncated)
            try c.encode(item.inConflict, forKey: .inConflict)
            if withTags { try c.encode(item.tags, forKey: .tags) }
            if let sync = item.sync { try c.encode(sync.rawValue, forKey: .sync) }
        }
    }

    static func jsonItems(_ items: [GroceryItem], shortIDs: [GroceryItemID: String], format: GroceryStorageFormat) -> [JSONItem] {
        items.map { JSONItem(item: $0, shortID: shortIDs[$0.id] ?? $0.id.uuidString, withTags: format == .relational) }
    }
}
