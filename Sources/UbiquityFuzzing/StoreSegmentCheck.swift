import UbiquityBinary
import UbiquityStore

/// A relational store's log segment, as it arrives from another device.
///
/// - A segment is read, or refused with the store's typed error (never a trap, never past the
///   decoder's limits). Each input is tried twice: as it is, and with its last four bytes made
///   the CRC-32 of the rest (``sealed(_:)``), so that the fuzzer gets past the checksum into the
///   decoder behind it.
/// - A segment that is read is written back and read again to the same segment: nothing the
///   decoder accepted is lost or changed on its way into the merge.
public enum StoreSegmentCheck: FuzzCheck {
    public static let name = "store-segment"

    public static func accepts(_ bytes: [UInt8]) -> Bool { (try? Segment(decoding: bytes)) != nil }

    /// `bytes` with a correct checksum: its last four bytes replaced by the CRC-32 (little-endian)
    /// of the bytes before them.
    static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 4 else { return bytes }
        let body = bytes.dropLast(4)
        return Array(body) + Sealing.littleEndian(CRC32.checksum(body))
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        checkOne(bytes) ?? checkOne(sealed(bytes)).map { "with its checksum made right: " + $0 }
    }

    static func checkOne(_ bytes: [UInt8]) -> String? {
        guard let segment = try? Segment(decoding: bytes) else { return nil }
        do {
            guard try Segment(decoding: segment.encoded()) == segment else {
                return "the segment written back reads as another segment"
            }
        } catch {
            return "the segment written back is refused: \(error)"
        }
        return nil
    }
}
