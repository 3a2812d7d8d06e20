import UbiquityBinary

/// What a store keeps of one column of one row: the winning write's value, the row generation
/// and clock reading it was written at, and the reading it replaced (to tell a true conflict).
public struct ColumnState: Sendable, Hashable {
    public let value: StoreValue
    public let generation: UInt64
    public let clock: HLC
    public let base: HLC?

    public init(value: StoreValue, generation: UInt64, clock: HLC, base: HLC?) {
        self.value = value
        self.generation = generation
        self.clock = clock
        self.base = base
    }

    /// The merge order of column writes: a later generation wins, then a later clock reading.
    /// One write has one reading, so only a device that reused a reading (its clock state lost,
    /// or hostile) makes a tie; the bytes of the values settle it, the same way everywhere.
    public func precedes(_ other: ColumnState) -> Bool {
        if generation != other.generation { return generation < other.generation }
        if clock != other.clock { return clock < other.clock }
        return ColumnState.tieOrder(self).lexicographicallyPrecedes(ColumnState.tieOrder(other))
    }

    private static func tieOrder(_ state: ColumnState) -> [UInt8] {
        var out = ByteWriter()
        Segment.write(state.value, to: &out)
        if let base = state.base {
            out.littleEndian(UInt64(base.milliseconds))
            out.littleEndian(base.counter)
            out.append(contentsOf: base.device.rawValue.utf8)
        }
        return out.bytes
    }

    /// Whether this write was made without seeing `other` (its base is before `other`'s reading).
    func missed(_ other: ColumnState) -> Bool {
        guard let base else { return true }
        return base < other.clock
    }
}
