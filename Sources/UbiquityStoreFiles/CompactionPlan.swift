public import UbiquityStore

/// What a device may remove of its own files in a store's folder, decided from what is there.
/// Pure: the store lists the folder and reads the acknowledgements, this decides.
///
/// - A segment goes once the device's newest snapshot covers it (so a device that starts late,
///   or meets the gap, starts from the snapshot) **and** every other known device's
///   acknowledgement has passed it (so none that is importing still needs it). A known device
///   without an acknowledgement file has acknowledged nothing.
/// - An older snapshot of its own goes once a newer one is written.
/// - Only its own files: other devices' segments and snapshots are theirs to remove.
/// - A forgotten device is not waited for, until it acknowledges again (a newer acknowledgement
///   file than the one it had when it was forgotten): then it is known as any other.
public struct CompactionPlan: Sendable, Hashable {
    /// Own segments to remove, in order.
    public let segments: [UInt64]
    /// Own snapshots to remove (all but the newest), in order.
    public let snapshots: [UInt64]
    /// The last own segment every known device has acknowledged (0: none).
    public let acknowledgedByAll: UInt64
    /// Known devices whose acknowledgement is behind the newest own snapshot: what compaction
    /// waits for.
    public let waitingFor: [DeviceID]
    /// Known devices whose acknowledgement file has not changed for longer than the policy's
    /// silence, with the time it last changed (milliseconds since 1970).
    public let silent: [DeviceID: Int64]
    /// Known devices that are forgotten, and have not acknowledged anything since: neither
    /// waited for nor called silent.
    public let forgotten: [DeviceID]

    /// - Parameters:
    ///   - known: every device this one knows of (a log, a snapshot or an acknowledgement in
    ///     the folder, or a watermark in its cache); `device` itself is ignored.
    ///   - now: the wall clock, milliseconds since 1970.
    ///   - forgotten: devices forgotten, each with the modification time of its acknowledgement
    ///     file when it was (0: it had none).
    public init(device: DeviceID, segments: [UInt64], snapshots: [UInt64], acknowledgements: [DeviceID: Acknowledgement],
                known: Set<DeviceID>, now: Int64, silentAfterMilliseconds: Int64, forgotten: [DeviceID: Int64] = [:]) {
        let covered = snapshots.max() ?? 0
        let stillForgotten = Set(forgotten.filter { (acknowledgements[$0.key]?.modifiedMilliseconds ?? 0) <= $0.value }.keys)
        self.forgotten = known.subtracting([device]).intersection(stillForgotten).sorted()
        let others = known.subtracting([device]).subtracting(stillForgotten).sorted()
        let acknowledged = others.map { acknowledgements[$0]?.imported[device] ?? 0 }.min() ?? covered
        let limit = min(covered, acknowledged)
        self.segments = segments.filter { $0 <= limit }.sorted()
        self.snapshots = snapshots.filter { $0 < covered }.sorted()
        acknowledgedByAll = acknowledged
        waitingFor = others.filter { (acknowledgements[$0]?.imported[device] ?? 0) < covered }
        var silent: [DeviceID: Int64] = [:]
        for other in others {
            guard let ack = acknowledgements[other], ack.modifiedMilliseconds > 0 else { continue }
            if now &- ack.modifiedMilliseconds > silentAfterMilliseconds { silent[other] = ack.modifiedMilliseconds }
        }
        self.silent = silent
    }
}
