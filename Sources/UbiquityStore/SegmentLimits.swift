import UbiquityErrors

/// The most a segment may hold; a decoder refuses more with ``StoreErrorCode/segmentOversized``
/// before it allocates for it, so a hostile or damaged file costs at most these bounds.
public struct SegmentLimits: Sendable, Hashable {
    /// Bytes in the whole segment, header and checksum included: 16 MiB.
    public var maxSegmentBytes: Int
    /// Changes in one segment: 100,000.
    public var maxChanges: Int
    /// Bytes of one value (a string's UTF-8, data, a JSON value's encoding): 1 MiB.
    public var maxValueBytes: Int
    /// Entries in the segment's name table (tables, columns, relationships): 4,096.
    public var maxNames: Int
    /// Devices a segment's clock readings may name besides its writer: 1,024.
    public var maxDevices: Int
    /// Nesting of arrays and objects in a JSON value: 32.
    public var maxJSONDepth: Int

    public init(maxSegmentBytes: Int = 16 << 20, maxChanges: Int = 100_000, maxValueBytes: Int = 1 << 20,
                maxNames: Int = 4_096, maxDevices: Int = 1_024, maxJSONDepth: Int = 32) {
        self.maxSegmentBytes = maxSegmentBytes
        self.maxChanges = maxChanges
        self.maxValueBytes = maxValueBytes
        self.maxNames = maxNames
        self.maxDevices = maxDevices
        self.maxJSONDepth = maxJSONDepth
    }
}
