/// How much of the store's files the daemon reads (docs/kv-store.md, "Other limits"): the one
/// source of these numbers. Whoever can write the container writes these files, so each bound
/// caps what hostile files can cost — bytes read, values parsed (about 40 bytes of memory each
/// while parsing, more once kept), nesting — per file and per store. A file past a bound is
/// skipped and reported, like a damaged one.
///
/// Every bound follows from the quota (a store holds at most `max_bytes` of keys and values,
/// 1 MiB by default) with room for what a legitimate file also holds: removals, times, and
/// values another device's newer ones hide.
public struct KVReadLimits: Sendable, Hashable {
    /// One file: twice `max_bytes`, at least 2 MiB.
    public var fileBytes: Int
    /// All files of one store together: four files' worth (8 MiB by default).
    public var storeBytes: Int
    /// JSON values (each array member, dictionary member and entry counts) of one file: one per
    /// 8 bytes of ``fileBytes`` (262,144 by default).
    public var fileValues: Int
    /// JSON values of all files of one store together (1,048,576 by default).
    public var storeValues: Int
    /// Files read in one store's folder (devices, and conflict copies), in name order.
    public var files: Int
    /// Arrays and dictionaries nested in one file: the file's own three levels, plus values'
    /// ``KVValue/maxDepth`` (checked before the JSON is parsed).
    public var depth: Int

    public init(quota: KVQuota = KVQuota()) {
        fileBytes = max(2 << 20, quota.maxBytes.multipliedReportingOverflow(by: 2).overflow ? Int.max : quota.maxBytes * 2)
        storeBytes = fileBytes.multipliedReportingOverflow(by: 4).overflow ? Int.max : fileBytes * 4
        fileValues = fileBytes / 8
        storeValues = storeBytes / 8
        files = 64
        depth = KVValue.maxDepth + 4
    }

    /// What a scan of a file's JSON found (``KVReplica/measure(_:limits:)``).
    public struct Cost: Sendable, Hashable {
        /// JSON values, counted from the separators (an upper bound on what the parser makes).
        public var values: Int
        /// Deepest nesting of arrays and dictionaries.
        public var depth: Int
    }
}
