/// One device's hybrid logical clock (Kulkarni et al. 2014): readings that follow the wall clock,
/// never go backwards, and come after every reading this device has received — within a bound.
///
/// A pure value: the wall clock is an argument (milliseconds since 1970), so tests drive it and the
/// daemon persists ``latest`` to start again where it stopped.
///
/// A remote reading is never rejected (that would split the replicas), but this clock never
/// *adopts* more than ``maxAhead`` past its own wall clock: one device with a clock an hour fast
/// would otherwise drag every device an hour ahead for good. ``receive(_:wall:)`` reports such a peer.
/// ``stamp(after:wall:)`` still lets a write overwrite a value stamped in the future, by stamping
/// just past it, without moving this clock there.
///
/// ```swift
/// var clock = HybridLogicalClock(device: laptop)
/// let a = clock.now(wall: 1_000)          // 1000.0@laptop
/// let b = clock.now(wall: 1_000)          // 1000.1@laptop
/// clock.receive(phoneReading, wall: 1_000) // phone 1 h ahead: reported, adopted up to 61000
/// ```
public struct HybridLogicalClock: Sendable, Hashable {
    /// How far past its own wall clock this clock may be moved by a peer's reading: 60 s.
    public static let maxAhead: Int64 = 60_000

    public let device: DeviceID
    /// The last reading this clock made or adopted (always of ``device``).
    public private(set) var latest: HLC

    /// A clock that starts at `latest` (persisted by the daemon), or at the epoch.
    public init(device: DeviceID, latest: HLC? = nil) {
        self.device = device
        self.latest = HLC(milliseconds: latest?.milliseconds ?? 0, counter: latest?.counter ?? 0, device: device)
    }

    /// The next reading: the wall clock if it is ahead of every reading so far, else one past the latest.
    ///
    /// - Parameter wall: milliseconds since 1970 (clamped into the range an ``HLC`` holds).
    public mutating func now(wall: Int64) -> HLC {
        let wall = HLC(milliseconds: wall, device: device).milliseconds
        latest = wall > latest.milliseconds ? HLC(milliseconds: wall, device: device) : latest.successor(on: device)
        return latest
    }

    /// Takes in a peer's reading so that this clock's next readings come after it — unless it is
    /// more than ``maxAhead`` past `wall`, when this clock moves only to `wall + maxAhead`.
    ///
    /// - Returns: the skew, when the reading was further ahead than ``maxAhead``; nil otherwise.
    @discardableResult
    public mutating func receive(_ remote: HLC, wall: Int64) -> ClockSkew? {
        let wall = HLC(milliseconds: wall, device: device).milliseconds
        // wall ≤ HLC.maxMilliseconds, so the sum cannot overflow.
        let cap = min(wall + HybridLogicalClock.maxAhead, HLC.maxMilliseconds)
        let target = min(remote.milliseconds, cap)
        let counter = target == remote.milliseconds ? remote.counter : 0
        if target > latest.milliseconds {
            latest = HLC(milliseconds: target, counter: counter, device: device)
        } else if target == latest.milliseconds, counter > latest.counter {
            latest = HLC(milliseconds: target, counter: counter, device: device)
        }
        return remote.milliseconds > cap ? ClockSkew(device: remote.device, aheadBy: remote.milliseconds - wall) : nil
    }

    /// A reading for a write that must come after `floor` (the reading of the value it replaces,
    /// or this device's last write to the same row): ``now(wall:)``, or just past `floor` when
    /// that is later — also when `floor` is further ahead than this clock may move.
    public mutating func stamp(after floor: HLC?, wall: Int64) -> HLC {
        if let floor { receive(floor, wall: wall) }
        let reading = now(wall: wall)
        guard let floor, floor >= reading else { return reading }
        return floor.successor(on: device)
    }
}
