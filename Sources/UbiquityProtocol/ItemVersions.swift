public import UbiquityJSON

/// `versions.list`'s result: an item's current version and its other (conflict) versions, oldest
/// first, with the container they are in — the client reads and resolves them itself, with its own
/// rights, below `root` (the daemon never returns or moves file contents).
public struct ItemVersions: OperationResult, Hashable {
    /// The most versions one answer lists (the daemon also stops at 1 MiB of them); past it
    /// ``truncated`` is true and the oldest are listed.
    public static let maxListed = 1_000

    public var item: String
    /// The container's id and its root directory (the item's path is below it).
    public var container: String
    public var root: String
    public var current: ItemVersion
    public var others: [ItemVersion]
    /// More other versions exist than one answer carries; only the oldest are in ``others``.
    public var truncated: Bool

    public init(item: String, container: String, root: String, current: ItemVersion, others: [ItemVersion], truncated: Bool = false) {
        self.item = item
        self.container = container
        self.root = root
        self.current = current
        self.others = others
        self.truncated = truncated
    }

    /// Conflict versions not yet chosen or removed (today every other version is one).
    public var unresolvedConflicts: [ItemVersion] { others.filter(\.conflict) }

    public var json: JSONValue {
        .object(["item": .string(item), "container": .string(container), "root": .string(root), "current": current.json,
                 "others": .array(others.map(\.json)), "truncated": .bool(truncated),
                 "hasUnresolvedConflicts": .bool(!unresolvedConflicts.isEmpty)])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "versions.list result")
        item = try reader.string("item")
        container = try reader.string("container")
        root = try reader.string("root")
        current = try ItemVersion(json: try reader.value("current"), context: "current")
        others = try reader.list("others") { (value, context) throws(ProtocolError) in try ItemVersion(json: value, context: context) }
        truncated = try reader.optionalBool("truncated") ?? false
    }
}
