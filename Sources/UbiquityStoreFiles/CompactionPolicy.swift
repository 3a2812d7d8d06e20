public import UbiquityStore

/// When a device writes snapshots of a store and when it calls another device silent
/// (docs/stores.md, "Snapshots and compaction").
public struct CompactionPolicy: Sendable, Hashable {
    /// A snapshot after every this many of the device's own segments (its segments 50, 100, …):
    /// 50, as Ensembles re-baselines after about 50 events. 0: never.
    public var snapshotEvery: UInt64
    /// A known device whose acknowledgement file has not changed for this long is reported
    /// silent (it holds compaction back): 30 days.
    public var silentAfterMilliseconds: Int64
    /// The most a snapshot read may hold.
    public var snapshotLimits: SnapshotLimits
    /// Devices forgotten when the store opens (``DeviceStore/forget(_:)``), each with the
    /// modification time of its acknowledgement file when it was forgotten (0: it had none).
    public var forgotten: [DeviceID: Int64]
    /// A deleted row shrinks to its floor at a quiet point only once its latest delete is this
    /// old (by the delete's clock reading against this device's wall clock): 1 day. A device that
    /// imported the row but is not known yet (its files still on their way) would otherwise bring
    /// its edit back partial on the shrunk device until its repair arrives.
    public var floorAfterMilliseconds: Int64

    public init(snapshotEvery: UInt64 = 50, silentAfterMilliseconds: Int64 = 30 * 86_400_000, snapshotLimits: SnapshotLimits = SnapshotLimits(),
                forgotten: [DeviceID: Int64] = [:], floorAfterMilliseconds: Int64 = 86_400_000) {
        self.snapshotEvery = snapshotEvery
        self.silentAfterMilliseconds = silentAfterMilliseconds
        self.snapshotLimits = snapshotLimits
        self.forgotten = forgotten
        self.floorAfterMilliseconds = floorAfterMilliseconds
    }
}
