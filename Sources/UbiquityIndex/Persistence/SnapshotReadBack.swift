/// Fills `destination` with the bytes at `offset` of the snapshot last written through
/// ``IndexPersistence`` (``IndexPersistence/readSnapshot(at:into:)``); false when they cannot be
/// read (the file was removed since, or is shorter). ``IncrementalSnapshotEncoder`` reads the
/// pieces of a snapshot that did not change back from the file instead of keeping them in memory.
typealias SnapshotReadBack = @Sendable (_ offset: Int, _ destination: UnsafeMutableRawBufferPointer) -> Bool
