public import FoundationEssentials

/// One entry of the shopping list as `list`, `show` and `watch` see it, whichever the storage format.
public struct GroceryItem: Sendable, Hashable {
    public let id: GroceryItemID
    /// The stored name, exactly (empty means unnamed; see ``displayName``). When ``isTruncated``,
    /// only the first ``GroceryLimits/maxNameBytes`` bytes.
    public var name: String
    /// When the item was added: the package's record, or the item file's birth time (a rename
    /// rewrites the file, so in file mode it is the time of the last rename; nil when the file
    /// system keeps no birth time).
    public var created: Date?
    /// The last change of the name (or image).
    public var modified: Date?
    /// The item's image format (package mode only).
    public var image: ImageFormat?
    /// The item file holds more than ``GroceryLimits/maxNameBytes`` bytes (written by something
    /// other than `grocery`); only the beginning was read.
    public var isTruncated: Bool
    /// The item has unresolved conflict versions (another device saved it at the same time):
    /// `grocery conflicts ID` shows them, `grocery resolve ID` ends the conflict.
    public var inConflict: Bool
    /// The names of the item's tags, sorted (store mode only; otherwise empty).
    public var tags: [String]
    /// Where the item stands with the other devices (file mode, when a sync engine shares the
    /// container and the list asked); nil: nothing to say.
    public var sync: GrocerySyncMark?

    public init(id: GroceryItemID, name: String, created: Date? = nil, modified: Date? = nil,
                image: ImageFormat? = nil, isTruncated: Bool = false, inConflict: Bool = false, tags: [String] = [],
                sync: GrocerySyncMark? = nil) {
        self.id = id
        self.name = name
        self.created = created
        self.modified = modified
        self.image = image
        self.isTruncated = isTruncated
        self.inConflict = inConflict
        self.tags = tags
        self.sync = sync
    }

    /// The name for people: `Unnamed item` when empty, `…` after a truncated name.
    public var displayName: String { GroceryName.display(name) + (isTruncated ? "…" : "") }
}
