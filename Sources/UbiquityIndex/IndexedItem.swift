/// A live, allocation-free view of one indexed item; `path` is computed on demand.
public struct IndexedItem: ItemFacts {
    let index: MetadataIndex
    public let id: ItemID

    init(_ index: MetadataIndex, _ id: ItemID) {
        self.index = index
        self.id = id
    }

    public var name: String { index.name(id) }
    public var stat: FileStat { index.stat(id) }
    public var isPackage: Bool { index.flags(id).contains(.package) }
    public var isHidden: Bool { index.flags(id).contains(.hidden) }
    public var scope: Scope { index.flags(id).contains(.documents) ? .documents : .data }
    public var containerID: ContainerID { index.containers[index.container(of: id)].id }
    public var packageType: String? {
        guard isPackage, let ext = ContentTypes.pathExtension(name) else { return nil }
        return index.containers[index.container(of: id)].packageTypes[ext.lowercased()]
    }
    public var packageSize: Int64 { index.packageTotals(id).size }
    public var packageModified: Int64 { index.packageTotals(id).modified }
    public var path: String { index.path(of: id) }
    public var tags: [String] { index.stat(id).tags }
    public var hasUnresolvedConflicts: Bool { index.hasUnresolvedConflicts(id) }
    public var syncValues: SyncAttributeValues { index.syncValues(id) }
    public var identity: ItemIdentity { index.identity(id) }
    public func frozen() -> FrozenItem { FrozenItem(self) }
}
