import UbiquityBinary
import UbiquityIndex

/// The answers a clean shutdown remembered (`index.answers`), as the daemon reads them at its next
/// start: ``RememberedAnswers``, for snapshot 7.
///
/// - The file is read, or refused with ``SavedIndexError`` (the daemon then answers from the loaded
///   index): never a trap, never an allocation past libFuzzer's memory limit, no more results than
///   the bytes could describe (four bytes each at the least).
/// - Every result read can be used as the server uses it — its path and each attribute's value —
///   without a trap, and the answers written again read back the same (written once more, the same bytes).
///
/// Each input is tried as it is and sealed (``sealed(_:)``): its length, CRC-32 and snapshot made
/// right, so that the fuzzer gets past them into the answers.
public enum RememberedAnswersCheck: FuzzCheck {
    public static let name = "remembered-answers"

    static let snapshotID: UInt64 = 7
    static let headerSize = Sealing.savedFileHeaderSize

    static func decode(_ bytes: [UInt8]) -> Result<[RememberedAnswer], SavedIndexError> {
        Result { () throws(SavedIndexError) in try RememberedAnswers.decode(bytes, snapshotID: snapshotID) }
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool {
        guard case .success(let answers) = decode(bytes) else { return false }
        return !answers.isEmpty
    }

    /// `bytes` with a header that matches its body (length, CRC-32) and a body naming ``snapshotID``.
    static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= headerSize + 8 else { return bytes }
        var out = bytes
        Sealing.write(snapshotID, into: &out, at: headerSize)
        return Sealing.withBodyLengthAndChecksum(out)
    }

    public static func check(_ bytes: [UInt8]) -> String? {
        checkOne(bytes) ?? checkOne(sealed(bytes)).map { "with its header made right: " + $0 }
    }

    static func checkOne(_ bytes: [UInt8]) -> String? {
        guard case .success(let answers) = decode(bytes) else { return nil }
        let results = answers.reduce(0) { $0 + $1.results.count }
        guard results <= bytes.count / 4 else { return "\(bytes.count) bytes read as \(results) results" }
        for answer in answers {
            for i in answer.results.indices {
                _ = answer.results.path(i)
                for attribute in answer.results.attributes { _ = answer.results.value(i, attribute) }
            }
        }
        // Compared as bytes: a value that is not a number (NaN) is not equal to itself.
        let written = RememberedAnswers.encode(answers, snapshotID: snapshotID)
        guard case .success(let again) = decode(written) else { return "the answers written again are refused" }
        guard RememberedAnswers.encode(again, snapshotID: snapshotID) == written else {
            return "the answers written again read back otherwise"
        }
        return nil
    }
}
