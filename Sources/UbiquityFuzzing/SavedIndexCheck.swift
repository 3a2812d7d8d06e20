import UbiquityBinary
import UbiquityIndex

/// The daemon's saved index, as it finds it at start after a crash (or after someone wrote to its
/// state directory): a snapshot, read by ``RestoredIndex/restore(snapshot:journal:containers:retention:now:bootID:)``.
///
/// - A snapshot is restored, or refused with ``SavedIndexError`` (the daemon then crawls from
///   nothing): never a trap, and never an allocation past libFuzzer's memory limit (the decoder
///   must bound every count by the bytes that remain). Each input is tried as it is and with its
///   header made right (``sealed(_:)``: the body's length and CRC-32), so that the fuzzer gets past
///   the checksum into the decoder and the index's consistency checks behind it.
/// - A restored index holds no more entries than the snapshot could describe (one byte each at
///   the least).
public enum SavedIndexCheck: FuzzCheck {
    public static let name = "saved-index"

    static let headerSize = Sealing.savedFileHeaderSize

    static func restore(_ bytes: [UInt8]) -> Result<RestoredIndex, SavedIndexError> {
        Result { () throws(SavedIndexError) in
            try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [], retention: ChangeHistory.Retention(),
                                      now: 1_795_341_600, bootID: "fuzz")
        }
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool { (try? restore(bytes).get()) != nil }

    /// `bytes` with a header that matches its body: the length and the CRC-32 (little-endian) of
    /// everything after the header.
    static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        Sealing.withBodyLengthAndChecksum(bytes)
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        checkOne(bytes) ?? checkOne(sealed(bytes)).map { "with its header made right: " + $0 }
    }

    static func checkOne(_ bytes: [UInt8]) -> String? {
        guard case .success(let restored) = restore(bytes) else { return nil }
        guard restored.entryCount <= bytes.count else {
            return "\(bytes.count) bytes restored as \(restored.entryCount) entries"
        }
        return nil
    }
}
