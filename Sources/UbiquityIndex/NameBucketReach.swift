import UbiquityPredicate

/// The name index's buckets one lookup reads (``NameIndex/forEach(matching:caseInsensitive:names:_:)``):
/// the bucket of its text, or, for a prefix shorter than a bucket's key, every bucket whose key
/// starts with it. Names still waiting to be filed (``MetadataIndex/pendingNames``) are filed
/// for a query by the same rule, so a lookup finds every name it would find were they all filed.
struct NameBucketReach {
    /// The lookup's text, and whether names need only start with it.
    let text: String
    let isPrefix: Bool
    /// ``NameIndex/bucket(_:)`` of ``text``.
    let key: String
    /// Whether every bucket whose key starts with ``key`` is read, not only ``key``'s.
    let readsEveryBucketStartingWithKey: Bool

    init(_ constraint: NameHint.Constraint) {
        switch constraint {
        case .exact(let s): (text, isPrefix) = (s, false)
        case .prefix(let s): (text, isPrefix) = (s, true)
        }
        key = NameIndex.bucket(text)
        readsEveryBucketStartingWithKey = isPrefix && key.count < NameIndex.bucketLength
    }

    /// Whether the lookup reads the bucket `bucketKey`.
    func reaches(_ bucketKey: String) -> Bool {
        readsEveryBucketStartingWithKey ? bucketKey.hasPrefix(key) : bucketKey == key
    }
}
