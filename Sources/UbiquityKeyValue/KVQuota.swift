public import UbiquityJSON

/// The store's quotas, per container, as Apple documents NSUbiquitousKeyValueStore's (configurable
/// in `[key_value]`, docs/configuration.md).
public struct KVQuota: Sendable, Hashable {
    /// Keys holding a value (removed keys do not count).
    public var maxKeys: Int = 1_024
    /// Every key's UTF-8 bytes plus its value's JSON wire form's bytes, summed.
    public var maxBytes: Int = 1_048_576
    /// One key's UTF-8 bytes.
    public var maxKeyBytes: Int = 64

    public init() {}

    public init(maxKeys: Int, maxBytes: Int, maxKeyBytes: Int) {
        self.maxKeys = maxKeys
        self.maxBytes = maxBytes
        self.maxKeyBytes = maxKeyBytes
    }

    /// What one key and its value count against ``maxBytes``.
    public static func bytes(key: String, value: KVValue) -> Int {
        key.utf8.count + JSONLine.encode(value.wire).utf8.count
    }

    /// Refuses an empty key or one past ``maxKeyBytes``.
    public func check(key: String) throws(KeyValueError) {
        guard !key.isEmpty else { throw KeyValueError(.invalidKey, "the key is empty", details: ["field": .string("key")]) }
        let size = key.utf8.count
        guard size <= maxKeyBytes else {
            throw KeyValueError(.quotaExceeded, "the key is \(size) bytes of UTF-8; a key may have at most \(maxKeyBytes)",
                                details: ["quota": .string("maxKeyBytes"), "limit": .integer(Int64(maxKeyBytes)),
                                          "key": .string(key)])
        }
    }

    public var json: JSONValue {
        .object(["maxKeys": .integer(Int64(maxKeys)), "maxBytes": .integer(Int64(maxBytes)),
                 "maxKeyBytes": .integer(Int64(maxKeyBytes))])
    }
}
