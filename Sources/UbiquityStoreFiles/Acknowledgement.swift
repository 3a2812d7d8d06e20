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
}
