/// An item's facts frozen at one moment: what a `removed` event reports after the entry is gone.
public struct FrozenItem: ItemFacts, Sendable, Hashable {
    public let id: ItemID
    public let identity: ItemIdentity
    public let name: String
    public let stat: FileStat
    public let isPackage: Bool
    public let isHidden: Bool
    public let scope: Scope
    public let containerID: ContainerID
    public let packageType: String?
    public let packageSize: Int64
    public let packageModified: Int64
    public let path: String
    public let hasUnresolvedConflicts: Bool
    public let syncValues: SyncAttributeValues
    public var tags: [String] { stat.tags }

    init(_ item: IndexedItem) {
        id = item.id
        identity = item.identity
        name = item.name
        stat = item.stat
        isPackage = item.isPackage
        isHidden = item.isHidden
        scope = item.scope
        containerID = item.containerID
        packageType = item.packageType
        packageSize = item.packageSize
        packageModified = item.packageModified
        path = item.path
        hasUnresolvedConflicts = item.hasUnresolvedConflicts
        syncValues = item.syncValues
    }

    /// An item as a saved index remembers it.
    init(identity: ItemIdentity, name: String, stat: FileStat, isPackage: Bool, isHidden: Bool, scope: Scope,
         containerID: ContainerID, packageType: String?, packageSize: Int64, packageModified: Int64, path: String,
         hasUnresolvedConflicts: Bool) {
        id = identity.id
        self.identity = identity
        self.name = name
        self.stat = stat
        self.isPackage = isPackage
        self.isHidden = isHidden
        self.scope = scope
        self.containerID = containerID
        self.packageType = packageType
        self.packageSize = packageSize
        self.packageModified = packageModified
        self.path = path
        self.hasUnresolvedConflicts = hasUnresolvedConflicts
        syncValues = .singleMachine     // sync facts are never saved: the engine is asked again
    }
}
