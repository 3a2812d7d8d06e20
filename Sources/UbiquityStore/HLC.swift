/// A hybrid logical clock reading: wall-clock milliseconds, a counter for events within one
/// millisecond (or past a peer's clock), and the device that made it.
///
/// Readings are totally ordered: milliseconds, then counter, then device id. No two devices share
/// an id and one device never makes the same reading twice, so two different writes never tie.
public struct HLC: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 9999-12-31T23:59:59.999Z: the latest reading a segment may carry.
    public static let maxMilliseconds: Int64 = 253_402_300_799_999

    /// Milliseconds since 1970-01-01T00:00:00Z, 0 ... ``maxMilliseconds``.
    public let milliseconds: Int64
    public let counter: UInt32
    public let device: DeviceID

    /// `milliseconds` is clamped into 0 ... ``maxMilliseconds``.
    public init(milliseconds: Int64, counter: UInt32 = 0, device: DeviceID) {
        self.milliseconds = min(max(milliseconds, 0), HLC.maxMilliseconds)
        self.counter = counter
        self.device = device
    }

    public static func < (a: HLC, b: HLC) -> Bool {
        if a.milliseconds != b.milliseconds { return a.milliseconds < b.milliseconds }
        if a.counter != b.counter { return a.counter < b.counter }
        return a.device < b.device
    }

    /// The least reading of `device` after this one: the counter goes up, or past its last value
    /// the millisecond does. Saturates at the end of time rather than trap.
    func successor(on device: DeviceID) -> HLC {
        if counter < UInt32.max { return HLC(milliseconds: milliseconds, counter: counter + 1, device: device) }
        if milliseconds < HLC.maxMilliseconds { return HLC(milliseconds: milliseconds + 1, counter: 0, device: device) }
        return HLC(milliseconds: milliseconds, counter: counter, device: device)
    }

    /// `1767225600000.3@laptop`.
    public var description: String { "\(milliseconds).\(counter)@\(device)" }
}
