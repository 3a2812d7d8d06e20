/// What one container's items take (`storage`, the Manage Storage view): items and bytes in the
/// documents and data scopes, the largest documents, and — when a sync engine shares the container
/// — how many paths each other device still needs.
public struct ContainerStorage: Sendable, Hashable {
    /// One of the largest documents: an item of the documents scope (a package as one item).
    public struct Document: Sendable, Hashable {
        public var path: String
        public var size: Int64
    }

    /// What one other device sharing the container still needs, from the sync engine's facts.
    public struct DeviceNeed: Sendable, Hashable {
        public var device: String
        public var connected: Bool
        /// Paths of the container this device does not hold in their current version.
        public var needs: Int
    }

    public var documentsItems = 0
    public var documentsBytes: Int64 = 0
    public var dataItems = 0
    public var dataBytes: Int64 = 0
    /// Evicted items (files on demand: placeholders), and the bytes their last known sizes add up
    /// to — what downloading them all would take. They count in their scope's items, with 0 bytes.
    public var evictedItems = 0
    public var evictedBytes: Int64 = 0
    /// Largest first (ties by path), at most the number asked for.
    public var largest: [Document] = []
    /// Empty without a sync engine, or while its facts are unknown.
    public var devices: [DeviceNeed] = []
    /// nil: no sync engine shares the container; false: one does but cannot be asked now.
    public var syncKnown: Bool?
}
