import UbiquityStore
public import UbiquityErrors

/// Why a segment's file could not be read: the code a decoding error of the same kind would
/// have (``StoreErrorCode/segmentOversized`` for a file too large, ``StoreErrorCode/segmentMalformed``
/// for a link or anything else that is not a regular file), and the reason in words.
public struct SegmentFileProblem: Error, Sendable, Hashable {
    public let code: StoreErrorCode
    public let reason: String
}
