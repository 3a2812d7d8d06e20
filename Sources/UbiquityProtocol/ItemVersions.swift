public import UbiquityPredicate

/// `versions.list`'s result: an item's current version and its other (conflict) versions, oldest first.
public struct ItemVersions: Sendable, Hashable {
    public var item: String
    public var current: ItemVersion
    public var others: [ItemVersion]

    public init(item: String, current: ItemVersion, others: [ItemVersion]) {
        self.item = item
        self.current = current
        self.others = others
    }

    /// Conflict versions not yet chosen or removed (today every other version is one).
    public var unresolvedConflicts: [ItemVersion] { others.filter(\.conflict) }

    public var json: JSONValue {
        .object(["item": .string(item), "current": current.json, "others": .array(others.map(\.json)),
                 "hasUnresolvedConflicts": .bool(!unresolvedConflicts.isEmpty)])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "versions.list result")
        item = try reader.string("item")
        current = try ItemVersion(json: try reader.value("current"), context: "current")
        others = try reader.list("others") { (value, context) throws(ProtocolError) in try ItemVersion(json: value, context: context) }
    }
}
