public import UbiquityStore

/// Whether a device is at a *quiet point* of a store, decided from its watermarks and the
/// acknowledgement files (pure; docs/stores.md, "Tombstones shrink to floors"):
///
/// - every other known device's acknowledgement has imported at least what this device has
///   imported of every log (this device's own too), so each has seen every delete this one has;
/// - and this device has imported each known device's log up to that device's own watermark in
///   its acknowledgement, so every write made before a delete was seen there is merged here.
///
/// A known device without an acknowledgement file has acknowledged nothing: no quiet point.
/// A device alone is always at one.
public enum QuietPoint {
    /// - Parameters:
    ///   - imported: this device's watermarks (its own log included).
    ///   - known: every device this one knows of (as for ``CompactionPlan``); `device` is ignored.
    public static func holds(device: DeviceID, imported: [DeviceID: UInt64], acknowledgements: [DeviceID: Acknowledgement],
                             known: Set<DeviceID>) -> Bool {
        for other in known where other != device {
            guard let ack = acknowledgements[other] else { return false }
            for (log, mark) in imported where mark > 0 && (ack.imported[log] ?? 0) < mark { return false }
            if (ack.imported[other] ?? 0) > (imported[other] ?? 0) { return false }
        }
        return true
    }
}
