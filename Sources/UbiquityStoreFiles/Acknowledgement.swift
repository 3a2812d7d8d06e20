public import UbiquityStore

/// One device's acknowledgement file (`acks/<device>`), read: how far it had imported each
/// device's log (its own included) and when the file last changed, which is how long the device
/// has been silent.
public struct Acknowledgement: Sendable, Hashable {
    public let imported: [DeviceID: UInt64]
    /// The file's modification time, milliseconds since 1970 (0: unknown).
    public let modifiedMilliseconds: Int64

    public init(imported: [DeviceID: UInt64], modifiedMilliseconds: Int64) {
        self.imported = imported
        self.modifiedMilliseconds = modifiedMilliseconds
    }

    /// What each device is known to have acknowledged: the files as `read` now, over what they
    /// said before (`held`, since the store opened). A device's watermarks only grow, so each is
    /// the larger of the two, and so is the file's time. A file missing from `read`, or empty
    /// there (it could not be read), keeps what it said before: Syncthing replaces a file by
    /// removing the old one and then renaming the new one in, and a pass that looks in between
    /// must not take the device for one that acknowledged nothing.
    public static func joining(_ read: [DeviceID: Acknowledgement], over held: [DeviceID: Acknowledgement]) -> [DeviceID: Acknowledgement] {
        read.merging(held) { now, before in
            Acknowledgement(imported: now.imported.merging(before.imported, uniquingKeysWith: max),
                            modifiedMilliseconds: max(now.modifiedMilliseconds, before.modifiedMilliseconds))
        }
    }
}
