public import UbiquityStore

/// One device's acknowledgement file (`acks/<device>`), read: how far it had imported each
/// device's log (its own included) and when the file last changed, which is how long the device
/// has been silent.
public struct Acknowledgement: Sendable, Hashable {
    public let imported: [DeviceID: UInt64]
    /// The file's modification time, milliseconds since 1970 (0: unknown).
    public let modifiedMilliseconds: Int64
    /// False when the file could not be read or parsed: it acknowledges nothing by itself.
    public let readable: Bool

    public init(imported: [DeviceID: UInt64], modifiedMilliseconds: Int64, readable: Bool = true) {
        self.imported = imported
        self.modifiedMilliseconds = modifiedMilliseconds
        self.readable = readable
    }

    /// What each device is known to have acknowledged: the files as `read` now, over what they
    /// said before (`held`, since the store opened). A file read now gives its watermarks, each
    /// no lower than the same device's before, and the later of the two times: a device's
    /// watermarks do not go back while the store is open (one whose cache was rebuilt writes
    /// lower ones, and is then treated as the late device it is: it joins the snapshots). A file
    /// not ``readable`` now keeps what it said before, with the later time; a file missing from
    /// `read` keeps what it said while `stillKnown` says the device is known otherwise: Syncthing
    /// replaces a file by removing the old one and then renaming the new one in, and a pass that
    /// looks in between must not take the device for one that acknowledged nothing. What is held
    /// is bounded by what the files hold now and the devices known otherwise.
    public static func joining(_ read: [DeviceID: Acknowledgement], over held: [DeviceID: Acknowledgement],
                               stillKnown: (DeviceID) -> Bool) -> [DeviceID: Acknowledgement] {
        var joined: [DeviceID: Acknowledgement] = [:]
        for (device, before) in held where read[device] == nil && stillKnown(device) { joined[device] = before }
        for (device, now) in read {
            guard let before = held[device] else {
                joined[device] = now
                continue
            }
            guard now.readable else {
                // There, but not readable now: what it said before, and the later time (the
                // device is writing it: not silent, and back if it was forgotten).
                joined[device] = Acknowledgement(imported: before.imported,
                                                 modifiedMilliseconds: max(now.modifiedMilliseconds, before.modifiedMilliseconds),
                                                 readable: before.readable)
                continue
            }
            var imported = now.imported
            for (other, sequence) in imported { imported[other] = max(sequence, before.imported[other] ?? 0) }
            joined[device] = Acknowledgement(imported: imported, modifiedMilliseconds: max(now.modifiedMilliseconds, before.modifiedMilliseconds))
        }
        return joined
    }
}
