public import UbiquityStore

/// What the journal says about a store's sync with other devices, once per change of condition:
/// a device's import became degraded (or stopped for an upgrade) at a segment, or went on again.
/// Pure: the daemon compares the sync states before and after an import and logs what this returns,
/// so a damaged segment is logged once however many imports find it still there.
public enum SyncStateTransition: Sendable, Hashable {
    /// The device's import stopped at a segment it cannot import (a new segment, or a new reason).
    case degraded(device: DeviceID, sequence: UInt64, code: String, reason: String)
    /// The device's import stopped at a segment written with a newer schema.
    case needsUpgrade(device: DeviceID, sequence: UInt64, schemaVersion: UInt32)
    /// The device's import, stopped before, is current again (the segment was replaced, or the
    /// schema upgraded).
    case resumed(device: DeviceID, imported: UInt64)

    /// The transitions from `before` to `after`, in the order of `after`. A device first seen
    /// current says nothing; one first seen stopped is reported; a device gone from `after`
    /// says nothing.
    public static func between(_ before: [DeviceSyncState], _ after: [DeviceSyncState]) -> [SyncStateTransition] {
        let earlier = Dictionary(before.map { ($0.device, $0.condition) }, uniquingKeysWith: { _, last in last })
        return after.compactMap { state in
            let previous = earlier[state.device]
            guard previous != state.condition else { return nil }
            switch state.condition {
            case .current:
                guard let previous, previous != .current else { return nil }
                return .resumed(device: state.device, imported: state.imported)
            case .degraded(let sequence, let code, let reason):
                return .degraded(device: state.device, sequence: sequence, code: code, reason: reason)
            case .needsUpgrade(let sequence, let schemaVersion):
                return .needsUpgrade(device: state.device, sequence: sequence, schemaVersion: schemaVersion)
            }
        }
    }
}
