import UbiquityBinary
public import UbiquityErrors

/// What a segment's fixed header says, read and checked (length and checksum) before its body:
/// enough for the daemon to know whose segment it is and whether this device can import it.
public struct SegmentHeader: Sendable, Hashable {
    public let device: DeviceID
    public let sequence: UInt64
    public let schemaVersion: UInt32
    public let changeCount: Int
    /// 1, or 2 for a segment that carries repairs after its changes.
    public let format: UInt16
    /// Where the body starts (after the device id).
    let bodyOffset: Int

    /// Checks, in this order, that the bytes are a whole segment of a format this code reads:
    /// the magic number, the format version, the announced length against the bytes and the
    /// limit, the CRC-32, then the header's own fields.
    ///
    /// - Throws: ``StoreErrorCode/segmentTruncated``, ``StoreErrorCode/segmentFutureFormat``,
    ///   ``StoreErrorCode/segmentOversized``, ``StoreErrorCode/segmentChecksum`` or
    ///   ``StoreErrorCode/segmentMalformed``, saying what was found.
    public init(decoding bytes: [UInt8], limits: SegmentLimits = SegmentLimits()) throws(StoreError) {
        typealias H = Segment.Header
        func le<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, at offset: Int) -> T {
            var value: T = 0
            for i in 0 ..< T.bitWidth / 8 { value |= T(bytes[offset + i]) << (8 * i) }
            return value
        }
        func fail(_ code: StoreErrorCode, _ message: String, _ details: [String: Int] = [:]) -> StoreError {
            StoreError(code, message, details: details.mapValues { .integer(Int64($0)) })
        }
        let magicSeen = bytes.prefix(4)
        guard Segment.magic.starts(with: magicSeen) else {
            let hex = magicSeen.map { String($0, radix: 16) }.joined(separator: " ")
            throw fail(.segmentMalformed, "this is not a segment: it starts with bytes \(hex), not 'UBQS'")
        }
        guard bytes.count >= H.flags else {
            throw fail(.segmentTruncated, "the segment ends after \(bytes.count) bytes, inside its header", ["bytes": bytes.count])
        }
        let format = le(UInt16.self, at: H.version)
        guard format <= Segment.formatVersion else {
            throw fail(.segmentFutureFormat, "the segment is in format \(format); this version reads format \(Segment.formatVersion) and older: upgrade to import it",
                       ["format": Int(format)])
        }
        guard format >= 1 else { throw fail(.segmentMalformed, "the segment claims format 0, which never existed") }
        guard bytes.count <= limits.maxSegmentBytes else {
            throw fail(.segmentOversized, "the segment is \(bytes.count) bytes, more than the \(limits.maxSegmentBytes) allowed",
                       ["bytes": bytes.count, "limit": limits.maxSegmentBytes])
        }
        guard bytes.count >= H.fixedBytes else {
            throw fail(.segmentTruncated, "the segment ends after \(bytes.count) bytes, inside its header", ["bytes": bytes.count])
        }
        let length = Int(le(UInt32.self, at: H.length))
        guard length <= limits.maxSegmentBytes else {
            throw fail(.segmentOversized, "the segment announces \(length) bytes, more than the \(limits.maxSegmentBytes) allowed",
                       ["bytes": length, "limit": limits.maxSegmentBytes])
        }
        guard bytes.count >= length else {
            throw fail(.segmentTruncated, "the segment has \(bytes.count) of the \(length) bytes its header announces",
                       ["bytes": bytes.count, "expected": length])
        }
        guard bytes.count == length else {
            throw fail(.segmentMalformed, "the segment has \(bytes.count - length) bytes after the \(length) its header announces",
                       ["bytes": bytes.count, "expected": length])
        }
        guard length >= H.fixedBytes + H.checksumBytes else {
            throw fail(.segmentMalformed, "the segment announces \(length) bytes, fewer than a header and a checksum take", ["bytes": length])
        }
        let stored = le(UInt32.self, at: length - H.checksumBytes)
        let computed = CRC32.checksum(bytes[0 ..< length - H.checksumBytes])
        guard stored == computed else {
            throw fail(.segmentChecksum, "the segment's checksum does not match its bytes: it was damaged (stored \(String(stored, radix: 16)), computed \(String(computed, radix: 16)))")
        }
        guard le(UInt16.self, at: H.flags) == 0 else { throw fail(.segmentMalformed, "the segment sets flags format \(format) does not define") }
        let deviceLength = Int(bytes[H.deviceLength])
        guard H.fixedBytes + deviceLength + H.checksumBytes <= length,
              let device = DeviceID(String(decoding: bytes[H.fixedBytes ..< H.fixedBytes + deviceLength], as: UTF8.self)),
              device.rawValue.utf8.count == deviceLength else {
            throw fail(.segmentMalformed, "the segment's device id is not 1 to 64 of A-Z a-z 0-9 - _")
        }
        let schemaVersion = le(UInt32.self, at: H.schema)
        guard schemaVersion >= 1 else { throw fail(.segmentMalformed, "the segment claims schema version 0") }
        let count = Int(le(UInt32.self, at: H.count))
        guard count <= limits.maxChanges else {
            throw fail(.segmentOversized, "the segment holds \(count) changes, more than the \(limits.maxChanges) allowed",
                       ["changes": count, "limit": limits.maxChanges])
        }
        self.device = device
        self.sequence = le(UInt64.self, at: H.sequence)
        self.schemaVersion = schemaVersion
        self.changeCount = count
        self.format = format
        self.bodyOffset = H.fixedBytes + deviceLength
    }
}
