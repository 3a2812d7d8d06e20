/// The id of a device that writes to a store: 1 to 64 of `A-Z a-z 0-9 - _` (the daemon's device
/// id is 32 lowercase hex digits). Ordered by its bytes, which settles ties between equal clocks.
public struct DeviceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The longest id, in bytes.
    public static let maxBytes = 64

    public let rawValue: String

    /// Nil when `rawValue` is not 1 to 64 of `A-Z a-z 0-9 - _`.
    public init?(_ rawValue: String) {
        guard DeviceID.isValid(rawValue.utf8) else { return nil }
        self.rawValue = rawValue
    }

    /// Whether `bytes` can name a device.
    static func isValid<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        !bytes.isEmpty && bytes.count <= maxBytes && bytes.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
        }
    }

    /// Byte order (the ids are ASCII, so this is also `String`'s order).
    public static func < (a: DeviceID, b: DeviceID) -> Bool { a.rawValue.utf8.lexicographicallyPrecedes(b.rawValue.utf8) }

    public var description: String { rawValue }
}
