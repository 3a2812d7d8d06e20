/// For each device, the latest clock reading of its writes to one row that is known here: what a
/// row's writers have done at its current generation, or what a delete had seen when it was made.
/// Merged by taking each device's later reading, so merging is order-free and idempotent.
public struct VersionVector: Sendable, Hashable {
    public private(set) var readings: [DeviceID: HLC]

    public init(_ readings: [HLC] = []) {
        self.readings = [:]
        for reading in readings { record(reading) }
    }

    /// Notes a write made at `reading`.
    public mutating func record(_ reading: HLC) {
        if let known = readings[reading.device], known >= reading { return }
        readings[reading.device] = reading
    }

    /// Each device's later reading of the two.
    public mutating func merge(_ other: VersionVector) {
        for reading in other.readings.values { record(reading) }
    }

    /// Whether the write made at `reading` is known here (this vector has its device at or past it).
    public func covers(_ reading: HLC) -> Bool {
        guard let known = readings[reading.device] else { return false }
        return known >= reading
    }

    /// Whether every reading of `other` is known here.
    public func covers(_ other: VersionVector) -> Bool { other.readings.values.allSatisfy(covers) }

    /// The readings in device order.
    public var sorted: [HLC] { readings.values.sorted { $0.device < $1.device } }

    public var isEmpty: Bool { readings.isEmpty }
}
