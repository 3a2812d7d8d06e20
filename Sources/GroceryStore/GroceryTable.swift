import FoundationEssentials
public import UbiquityKit
import UbiquityProtocol
public import UbiquityStore

/// Store mode (`--store relational`): the list as the rows of the container's relational store
/// `grocery` (docs/stores.md), through UbiquityKit's ``PersistentStore``. Items and tags are
/// rows; an item's tags are the relationship `items.tags` ↔ `tags.items`. Every change is one
/// transaction, merged with other devices' property by property: no conflict versions.
///
/// Tags are unique by their folded name, so their ids come from the name: two devices that both
/// tag something `mall` make one tag. The tags ``defaultTags`` are created on first use.
public final class GroceryTable: Sendable {
    /// The store's name in the container.
    public static let storeName = "grocery"
    /// The tags every list starts with.
    public static let defaultTags = ["mall", "grocery store", "green grocer"]

    /// `items` (name, quantity, note, created, done), `tags` (name, color; unique by name) and
    /// the relationship `tags` from items to tags (its inverse: `items`) — docs/protocol.md's example.
    public static let schema: Schema = {
        do {
            return try Schema(version: 1, tables: [
                TableSchema("items", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("quantity", .integer),
                                               ColumnSchema("note", .string), ColumnSchema("created", .date), ColumnSchema("done", .bool)]),
                TableSchema("tags", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("color", .string)],
                            uniqueBy: ["name"]),
            ], relationships: [RelationshipSchema("tags", from: "items", to: "tags", inverse: "items")])
        } catch {
            fatalError("the grocery schema is not valid: \(error)")
        }
    }()

    public let store: PersistentStore

    init(store: PersistentStore) { self.store = store }

    /// Opens (creating on first use) the store and its default tags.
    public static func open(container: String, connection: UbiquityConnection) async throws -> GroceryTable {
        let table = GroceryTable(store: try await PersistentStore.open(storeName, schema: schema, container: container,
                                                                       connection: connection))
        try await table.createDefaultTags()
        return table
    }

    /// Inserts the default tags that are not there yet (only those: inserting one that exists
    /// would write a segment for nothing).
    private func createDefaultTags() async throws {
        let present = Set(try await store.fetch(StoreFetchRequest(table: "tags")).map(\.id))
        let context = store.newContext()
        for name in Self.defaultTags where !present.contains(try Self.tagID(name)) {
            try context.insert(into: "tags", ["name": .string(name)])
        }
        try await context.save()
    }

    // MARK: Reading

    /// Every tag with how many items carry it, sorted by name (case-insensitive).
    public func tags() async throws -> [GroceryTag] {
        let rows = try await store.fetch(StoreFetchRequest(table: "tags", related: ["items"]))
        return rows.map { GroceryTag(id: $0.id, name: $0.string("name") ?? "", itemCount: $0.related["items"]?.count ?? 0) }
            .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    /// Every item with its tags' names; with `tag`, only the items that carry it.
    ///
    /// - Throws: ``GroceryError/unknownTag(_:known:)`` for a tag that does not exist.
    public func items(tagged tag: String? = nil) async throws -> [GroceryItem] {
        let tags = try await store.fetch(StoreFetchRequest(table: "tags"))
        let names = Dictionary(tags.map { ($0.id, $0.string("name") ?? "") }, uniquingKeysWith: { first, _ in first })
        var wanted: String?
        if let tag {
            let id = try Self.tagID(tag)
            guard names[id] != nil else { throw GroceryError.unknownTag(tag, known: names.values.sorted()) }
            wanted = id
        }
        let rows = try await store.fetch(StoreFetchRequest(table: "items", related: ["tags"]))
        return rows.compactMap { row -> GroceryItem? in
            let tagIDs = row.related["tags"] ?? []
            if let wanted, !tagIDs.contains(wanted) { return nil }
            return Self.item(row, tagNames: names)
        }
    }

    static func item(_ row: StoreRow, tagNames: [String: String]) -> GroceryItem? {
        guard let id = GroceryItemID(rowID: row.id) else { return nil }
        let tags = (row.related["tags"] ?? []).compactMap { tagNames[$0] }.sorted { $0.lowercased() < $1.lowercased() }
        return GroceryItem(id: id, name: row.string("name") ?? "", created: row.date("created"), tags: tags)
    }

    // MARK: Writing

    /// Adds one item per name, each tagged with `tags` (created when missing): one transaction.
    public func add(_ names: [String], tags: [String] = []) async throws -> [GroceryItem] {
        let tagNames = try Self.validatedTags(tags)
        let context = store.newContext()
        let created = Date()
        let millis = Int64((created.timeIntervalSince1970 * 1000).rounded(.down))
        let tagIDs = try await self.tagIDs(tagNames, creatingIn: context)
        var added: [GroceryItem] = []
        for name in names {
            let rowID = try context.insert(into: "items", ["name": .string(name), "created": .date(millis)])
            for tag in tagIDs { context.relate("tags", from: rowID, to: tag) }
            if let id = GroceryItemID(rowID: rowID) {
                added.append(GroceryItem(id: id, name: name, created: Date(timeIntervalSince1970: Double(millis) / 1000), tags: tagNames))
            }
        }
        try await context.save()
        return added
    }

    public func rename(_ id: GroceryItemID, to name: String) async throws {
        try await store.save([.update(table: "items", id: id.rowID, values: ["name": .string(name)])])
    }

    public func delete(_ ids: [GroceryItemID]) async throws {
        try await store.save(ids.map { .delete(table: "items", id: $0.rowID) })
    }

    /// Tags the item with each name (a tag that does not exist is created).
    public func tag(_ id: GroceryItemID, with names: [String]) async throws {
        let tagNames = try Self.validatedTags(names)
        let context = store.newContext()
        for tag in try await tagIDs(tagNames, creatingIn: context) { context.relate("tags", from: id.rowID, to: tag) }
        try await context.save()
    }

    /// The ids of the tags named, inserting in `context` those that do not exist yet (only
    /// those: inserting one again would overwrite its name's spelling with this one).
    private func tagIDs(_ names: [String], creatingIn context: StoreContext) async throws -> [String] {
        guard !names.isEmpty else { return [] }
        let present = Set(try await store.fetch(StoreFetchRequest(table: "tags")).map(\.id))
        return try names.map { name in
            let id = try Self.tagID(name)
            if !present.contains(id) { try context.insert(into: "tags", ["name": .string(name)]) }
            return id
        }
    }

    /// Takes each tag off the item.
    /// - Throws: ``GroceryError/unknownTag(_:known:)`` when a tag does not exist (nothing changes).
    public func untag(_ id: GroceryItemID, from names: [String]) async throws {
        let tagNames = try Self.validatedTags(names)
        let known = try await store.fetch(StoreFetchRequest(table: "tags"))
        let ids = Set(known.map(\.id))
        let context = store.newContext()
        for name in tagNames {
            let tag = try Self.tagID(name)
            guard ids.contains(tag) else { throw GroceryError.unknownTag(name, known: known.compactMap { $0.string("name") }.sorted()) }
            context.unrelate("tags", from: id.rowID, to: tag)
        }
        try await context.save()
    }

    /// A tag's id: derived from its folded name, as the daemon derives it.
    public static func tagID(_ name: String) throws -> String {
        guard let table = schema.tables.first(where: { $0.name == "tags" }) else { return "" }
        do { return try MeaningKey.rowID(table: table, values: ["name": .string(name)]).description } catch {
            throw GroceryError.emptyTag
        }
    }

    /// Checks every tag name before anything is written; one name per folded spelling.
    static func validatedTags(_ names: [String]) throws -> [String] {
        guard names.count <= GroceryLimits.maxTagsPerCommand else {
            throw GroceryError.tooManyTags(count: names.count, limit: GroceryLimits.maxTagsPerCommand)
        }
        var seen = Set<String>()
        var kept: [String] = []
        for name in names {
            let bytes = name.utf8.count
            guard bytes <= GroceryLimits.maxTagBytes else { throw GroceryError.tagTooLong(bytes: bytes, limit: GroceryLimits.maxTagBytes) }
            let folded = MeaningKey.fold(name)
            guard !folded.isEmpty else { throw GroceryError.emptyTag }
            if seen.insert(folded).inserted { kept.append(name) }
        }
        return kept
    }
}
