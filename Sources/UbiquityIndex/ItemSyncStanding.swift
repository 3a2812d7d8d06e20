/// Where one indexed item stands with the sync engine, as files on demand need it: its sync
/// attributes, whether it is evicted, and which devices holding its current version are
/// connected now (an eviction needs one).
public struct ItemSyncStanding: Sendable, Hashable {
    public var values: SyncAttributeValues
    public var evicted: Bool
    public var isDirectory: Bool
    public var isPackage: Bool
    /// Devices that hold the current version and are connected now, sorted.
    public var connectedHolders: [String]

    public init(values: SyncAttributeValues, evicted: Bool, isDirectory: Bool, isPackage: Bool, connectedHolders: [String]) {
        self.values = values
        self.evicted = evicted
        self.isDirectory = isDirectory
        self.isPackage = isPackage
        self.connectedHolders = connectedHolders
    }
}
