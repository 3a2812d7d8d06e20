/// The most a snapshot may hold; a reader refuses more (``StoreErrorCode/segmentOversized``)
/// before it allocates for it, so a hostile or damaged snapshot costs at most these bounds.
/// Values inside registers have a segment's limits (``SegmentLimits``: 1 MiB a value).
public struct SnapshotLimits: Sendable, Hashable {
    /// Bytes in the whole snapshot, header and checksum included: 256 MiB (about two million
    /// Grocery-sized rows).
    public var maxSnapshotBytes: Int
    /// Devices it gives watermarks for: 1,024.
    public var maxDevices: Int
    /// Entries in its name table (tables and relationships): 4,096.
    public var maxNames: Int

    public init(maxSnapshotBytes: Int = 256 << 20, maxDevices: Int = 1_024, maxNames: Int = 4_096) {
        self.maxSnapshotBytes = maxSnapshotBytes
        self.maxDevices = maxDevices
        self.maxNames = maxNames
    }
}
