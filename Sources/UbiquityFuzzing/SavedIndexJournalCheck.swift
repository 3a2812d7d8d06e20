import UbiquityBinary
import UbiquityIndex

/// The journal after a saved index, as the daemon finds it at start after a crash: the records
/// replayed onto a fixed, small snapshot that needs its journal (one written while batches went on).
///
/// - The journal is replayed, or the saved index refused with ``SavedIndexError``: never a trap,
///   never an allocation past libFuzzer's memory limit, no more entries than the journal's bytes
///   could describe.
/// - A record cut short at the end is left out, and only that: the journal without the bytes the
///   restore ignored gives the same index (as many records, as many entries) and ignores nothing.
///
/// Each input is tried as it is and sealed (``sealed(_:)``): its header naming the snapshot and
/// every whole record's CRC-32 made right, so that the fuzzer gets past both into the records.
public enum SavedIndexJournalCheck: FuzzCheck {
    public static let name = "saved-index-journal"

    static let snapshotID: UInt64 = 7
    static let bootID = "fuzz"
    /// magic (8) + format (4) + the snapshot it continues (8): a format 1 or 2 header, as the
    /// corpus's are (format 3 adds the boot id; its records are the same).
    static let headerSize = 20
    /// length (4) + CRC-32 of the payload (4).
    static let frameSize = 8

    /// A snapshot of one container with its root and nothing else, taken while batches went on
    /// (not final): it is restored only with its journal.
    static let snapshot: [UInt8] = {
        let index = MetadataIndex()
        // A literal that is a valid container id: `try!` cannot fail here.
        index.addContainer(ContainerDescriptor(id: try! ContainerID("com.example.grocery"), root: "/c"))
        return IndexSnapshot.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)), snapshotID: snapshotID,
                                    savedAt: 1_795_341_600, bootID: bootID, final: false, continues: nil)
    }()

    static func restore(_ journal: [UInt8]) -> Result<RestoredIndex, SavedIndexError> {
        Result { () throws(SavedIndexError) in
            try RestoredIndex.restore(snapshot: snapshot, journal: journal, containers: [], retention: ChangeHistory.Retention(),
                                      now: 1_795_341_600, bootID: bootID)
        }
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool {
        guard case .success(let restored) = restore(bytes) else { return false }
        return restored.journalRecords > 0
    }

    /// `bytes` with the header naming ``snapshotID`` and each whole record's checksum right.
    static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= headerSize else { return bytes }
        var out = bytes
        Sealing.write(snapshotID, into: &out, at: 12)
        var offset = headerSize
        while out.count - offset >= frameSize {
            let length = (0..<4).reduce(0) { $0 | Int(out[offset + $1]) << (8 * $1) }
            let payload = offset + frameSize
            guard length <= out.count - payload else { break }
            Sealing.write(CRC32.checksum(out[payload..<(payload + length)]), into: &out, at: offset + 4)
            offset = payload + length
        }
        return out
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        checkOne(bytes) ?? checkOne(sealed(bytes)).map { "with its header and checksums made right: " + $0 }
    }

    static func checkOne(_ bytes: [UInt8]) -> String? {
        guard case .success(let restored) = restore(bytes) else { return nil }
        guard restored.entryCount <= bytes.count + 1 else {
            return "a journal of \(bytes.count) bytes restored as \(restored.entryCount) entries"
        }
        guard restored.journalBytesIgnored > 0 else { return nil }
        let whole = Array(bytes.dropLast(restored.journalBytesIgnored))
        switch restore(whole) {
        case .success(let again):
            guard again.journalBytesIgnored == 0, again.journalRecords == restored.journalRecords,
                  again.entryCount == restored.entryCount else {
                return "without the \(restored.journalBytesIgnored) bytes it ignored, the journal gives \(again.journalRecords) records"
                    + " and \(again.entryCount) entries (ignoring \(again.journalBytesIgnored) bytes), not \(restored.journalRecords) and \(restored.entryCount)"
            }
            return nil
        case .failure(let error):
            return "without the \(restored.journalBytesIgnored) bytes it ignored, the journal is refused: \(error)"
        }
    }
}
