/// The codes of ``StoreError``. Stable (the raw value is the string clients, logs and docs use).
public enum StoreErrorCode: String, StableErrorCode {
    /// The schema itself is not valid: a bad or repeated name, a relationship to a table that does
    /// not exist, a unique key on a column that cannot hold one, a limit passed.
    case invalidSchema = "store.invalidSchema"
    /// A newer schema changes the older in a way that is not additive (a table, column or
    /// relationship removed or retyped, a non-nullable column added, the delete policy changed),
    /// or its version does not go up. Details name the table and column.
    case schemaNotAdditive = "store.schemaNotAdditive"
    /// A change a client asked for does not fit the schema or the store: an unknown table, column
    /// or relationship, a value of the wrong type, a missing required column, a row that does not exist.
    case invalidChange = "store.invalidChange"
    /// The segment ends before its header, its body or its checksum does.
    case segmentTruncated = "store.segmentTruncated"
    /// The segment's bytes do not match its CRC-32: damaged on disk or in transit.
    case segmentChecksum = "store.segmentChecksum"
    /// The segment was written in a newer segment format than this reader knows.
    case segmentFutureFormat = "store.segmentFutureFormat"
    /// The segment was written with a newer schema version than this device's: upgrade to import it.
    case segmentNeedsUpgrade = "store.segmentNeedsUpgrade"
    /// The segment passes a limit: bytes, changes, a value's size, a name's length, a count.
    case segmentOversized = "store.segmentOversized"
    /// The segment's bytes are not a segment: a bad magic number, a bad varint, an unknown tag,
    /// invalid UTF-8, a reference out of range, a clock out of range, bytes after the last change.
    case segmentMalformed = "store.segmentMalformed"
    /// The segment is well formed but names a table, column or relationship its schema version
    /// does not have, or holds a value of the wrong type for its column.
    case segmentDoesNotMatchSchema = "store.segmentDoesNotMatchSchema"
}
