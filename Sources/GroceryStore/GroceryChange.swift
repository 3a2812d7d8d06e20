public import FoundationEssentials

/// One change to the list, as `watch` reports it.
public struct GroceryChange: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        case added, renamed
        /// Its tags changed (store mode): ``GroceryChange/tags`` are the ones it has now.
        case retagged
        case imageSet, imageRemoved, removed
        /// The item got conflict versions (another device saved it at the same time).
        case conflicted
        /// Its conflict ended (resolved here or on another device).
        case conflictResolved
    }

    public let kind: Kind
    public let id: GroceryItemID
    /// The name now (for `removed`: the last name known).
    public let name: String
    /// The name before, for `renamed`.
    public let oldName: String?
    /// The image format, for `imageSet`.
    public let image: ImageFormat?
    /// The tags' names now, for `retagged`.
    public let tags: [String]?
    /// When the watcher saw the change.
    public let at: Date

    public init(kind: Kind, id: GroceryItemID, name: String, oldName: String? = nil, image: ImageFormat? = nil,
                tags: [String]? = nil, at: Date) {
        self.kind = kind
        self.tags = tags
        self.id = id
        self.name = name
        self.oldName = oldName
        self.image = image
        self.at = at
    }

    /// What changed from `old` to `new`, compared by id: added, renamed (the name differs),
    /// image set or removed, in conflict or resolved, removed. A change of both name and image gives two changes.
    /// Ordered by kind as listed in ``Kind``, then by name, then by id, so output is stable.
    ///
    /// - Complexity: O(n log n) in the size of the two lists.
    public static func between(_ old: [GroceryItemID: GroceryItem], _ new: [GroceryItemID: GroceryItem],
                               at time: Date = Date()) -> [GroceryChange] {
        var changes: [GroceryChange] = []
        for (id, item) in new {
            guard let before = old[id] else {
                changes.append(.init(kind: .added, id: id, name: item.name, at: time))
                if let image = item.image { changes.append(.init(kind: .imageSet, id: id, name: item.name, image: image, at: time)) }
                continue
            }
            if before.name != item.name || before.isTruncated != item.isTruncated {
                changes.append(.init(kind: .renamed, id: id, name: item.name, oldName: before.name, at: time))
            }
            if before.tags != item.tags {
                changes.append(.init(kind: .retagged, id: id, name: item.name, tags: item.tags, at: time))
            }
            if let image = item.image, image != before.image || item.modified != before.modified && item.name == before.name {
                // Same name, newer modification and an image: the image was replaced.
                changes.append(.init(kind: .imageSet, id: id, name: item.name, image: image, at: time))
            } else if item.image == nil, before.image != nil {
                changes.append(.init(kind: .imageRemoved, id: id, name: item.name, at: time))
            }
            if item.inConflict != before.inConflict {
                changes.append(.init(kind: item.inConflict ? .conflicted : .conflictResolved, id: id, name: item.name, at: time))
            }
        }
        for (id, item) in old where new[id] == nil {
            changes.append(.init(kind: .removed, id: id, name: item.name, at: time))
        }
        let rank = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
        return changes.sorted {
            if $0.kind != $1.kind { return rank[$0.kind]! < rank[$1.kind]! }
            if $0.name != $1.name { return $0.name < $1.name }
            return $0.id < $1.id
        }
    }
}

extension Dictionary where Key == GroceryItemID, Value == GroceryItem {
    /// The items by id.
    public init(items: some Sequence<GroceryItem>) {
        self.init(items.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }
}
