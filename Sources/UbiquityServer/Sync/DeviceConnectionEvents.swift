/// Which devices the engine's events say connected or went away, the last event of each device
/// winning. Pure.
///
/// Why not only `/rest/system/connections`: reads of it after a pause and resume still said "not
/// connected" for a device whose `DeviceConnected` event had come (seen in the Grocery sync test:
/// the other device stayed "offline" while Syncthing's own events had it connected). So what the
/// events said since the last full read is laid over every read of the connections; a resync
/// (events lost) starts again from the endpoint alone.
enum DeviceConnectionEvents {
    /// The device's id as the event names it (`id` for connections, `device` for pauses), and
    /// whether it is connected after the event; nil for events that say neither.
    static func effect(type: String, device: String?) -> (device: String, connected: Bool)? {
        guard let device else { return nil }
        switch type {
        case "DeviceConnected": return (device, true)
        case "DeviceDisconnected", "DevicePaused": return (device, false)
        default: return nil
        }
    }

    /// The last word of `batch` on each device.
    static func latest(_ batch: [(type: String, device: String?)]) -> [String: Bool] {
        var latest: [String: Bool] = [:]
        for event in batch {
            if let (device, connected) = effect(type: event.type, device: event.device) { latest[device] = connected }
        }
        return latest
    }

    /// `connected` as read, corrected by what the events said.
    static func apply(_ latest: [String: Bool], to connected: Set<String>) -> Set<String> {
        var result = connected
        for (device, isConnected) in latest {
            if isConnected { result.insert(device) } else { result.remove(device) }
        }
        return result
    }
}
