/// A peer whose clock reading was more than ``HybridLogicalClock/maxAhead`` ahead of this
/// device's wall clock: accepted (rejecting it would split the replicas) but reported, because
/// its writes win over later writes made elsewhere until real time catches up.
public struct ClockSkew: Sendable, Hashable, CustomStringConvertible {
    /// The device whose reading was ahead.
    public let device: DeviceID
    /// How far ahead of this device's wall clock, in milliseconds.
    public let aheadBy: Int64

    public init(device: DeviceID, aheadBy: Int64) {
        self.device = device
        self.aheadBy = aheadBy
    }

    public var description: String { "device \(device) is \(aheadBy) ms ahead of this one's clock" }
}
