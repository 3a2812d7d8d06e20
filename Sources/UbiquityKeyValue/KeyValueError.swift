public import UbiquityErrors
public import UbiquityPredicate
public import UbiquityProtocol

/// Why a key-value request was refused. ``Code`` is stable (its raw value is the wire string).
public struct KeyValueError: CodedClientError, Hashable {
    public enum Code: String, StableErrorCode {
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

    public let code: Code
    public let message: String
    public var details: [String: JSONValue]

    public init(_ code: Code, _ message: String, details: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }
}
