/// The codes of ``KeyValueError``: why a key-value request was refused. Stable (the raw value is the wire string).
public enum KeyValueErrorCode: String, StableErrorCode {
    /// The key is empty.
    case invalidKey = "kv.invalidKey"
    /// The value is not one the store keeps: null, a `$`-key other than `$data`/`$date`, bad
    /// base64, a date that is not `YYYY-MM-DDTHH:MM:SS[.mmm]Z`, or nested deeper than allowed.
    case invalidValue = "kv.invalidValue"
    /// The write would pass a quota: too many keys, too many bytes, or a key too long.
    /// Nothing was written; subscribers get `kv.changed` with `quotaViolationChange`.
    case quotaExceeded = "kv.quotaExceeded"
    /// No subscription with that number on this connection.
    case unknownStore = "kv.unknownStore"
    /// The store's directory or file could not be written (permissions, a full disk):
    /// nothing was acknowledged and nothing changed.
    case storageFailed = "kv.storageFailed"
}
