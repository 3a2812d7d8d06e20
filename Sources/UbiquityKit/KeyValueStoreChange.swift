public import UbiquityKeyValue

/// Keys of a ``KeyValueStore`` changed outside this process (NSUbiquitousKeyValueStore's
/// `didChangeExternallyNotification`, with its reason and changed keys).
public struct KeyValueStoreChange: Sendable, Hashable {
    /// Why: another process or device (`serverChange`), the first values from another device,
    /// a quota violation, or the account (container) changed.
    public var reason: KVChangeReason
    /// The keys whose values changed (for `quotaViolationChange`, the refused write's key).
    public var keys: [String]

    public init(reason: KVChangeReason, keys: [String]) {
        self.reason = reason
        self.keys = keys
    }
}
