/// Why subscribers are told of changed keys (NSUbiquitousKeyValueStoreChangeReasonKey).
public enum KVChangeReason: String, Sendable, Hashable, CaseIterable {
    /// Another process on this device, or another device, changed the keys.
    case serverChange
    /// The first values ever received from another device since the store was loaded empty of
    /// other devices' files.
    case initialSyncChange
    /// A write was refused for passing a quota (the keys are the ones it named), or values
    /// received from other devices put the store past a quota.
    case quotaViolationChange
    /// The container now lives somewhere else (a configuration reload moved it): every key may
    /// differ, and the keys named are every key of the old store and the new one.
    case accountChange
}
