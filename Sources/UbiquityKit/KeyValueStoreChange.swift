public import UbiquityKeyValue

/// Keys of a ``KeyValueStore`` changed outside this process (NSUbiquitousKeyValueStore's
/// `didChangeExternallyNotification`, with its reason and changed keys).
public struct KeyValueStoreChange: Sendable, Hashable {
    /// Why: another process or device (`serverChange`), the first values from another device,
    /// a quota violation, or the account (container) changed.
    public var reason: KVChangeReason
    /// The keys whose values changed (for `quotaViolationChange`, the refused write's key).
    public var keys: [String]
    /// More keys changed than the daemon lists (more than the store may hold, while this
    /// process was not reading): the store was read again, and ``keys`` are exactly those whose
    /// values differ from what the local copy held — added, changed or removed. A key changed
    /// and changed back in between is not among them: its value is what it was.
    public var reread: Bool

    public init(reason: KVChangeReason, keys: [String], reread: Bool = false) {
        self.reason = reason
        self.keys = keys
        self.reread = reread
    }
}
