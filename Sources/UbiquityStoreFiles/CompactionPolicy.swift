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

    public init(snapshotEvery: UInt64 = 50, silentAfterMilliseconds: Int64 = 30 * 86_400_000, snapshotLimits: SnapshotLimits = SnapshotLimits(),
                forgotten: [DeviceID: Int64] = [:]) {
        self.snapshotEvery = snapshotEvery
        self.silentAfterMilliseconds = silentAfterMilliseconds
        self.snapshotLimits = snapshotLimits
        self.forgotten = forgotten
    }
}
