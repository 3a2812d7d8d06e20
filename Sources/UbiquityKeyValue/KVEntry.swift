/// What one device's file says about one key: its value (nil once removed) and when, by whom.
public struct KVEntry: Sendable, Hashable {
    /// nil: the key was removed (a tombstone, so that the removal wins over older writes elsewhere).
    public var value: KVValue?
    /// Microseconds since 1970 on the writer's clock, never below any time the writer had seen.
    public var modified: Int64
    /// The writing device's id.
    public var device: String

    public init(value: KVValue?, modified: Int64, device: String) {
        self.value = value
        self.modified = modified
        self.device = device
    }

    /// Last writer wins: the later `modified`; on a tie, the greater device id (byte order).
    public func wins(over other: KVEntry) -> Bool {
        if modified != other.modified { return modified > other.modified }
        return other.device.utf8.lexicographicallyPrecedes(device.utf8)
    }
}
