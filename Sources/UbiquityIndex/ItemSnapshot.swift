/// An item's facts frozen at one moment: what a `removed` event reports after the entry is gone.
public struct ItemSnapshot: ItemFacts, Sendable, Hashable {
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
    }
}
