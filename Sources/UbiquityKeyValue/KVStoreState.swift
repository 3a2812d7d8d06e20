/// A container's store in memory: every device's file as last read, and their merge. Pure: the
/// daemon reads and writes the files and passes the time in.
public struct KVStoreState: Sendable {
    /// This device's id; its file is ``ownFile``.
    public let device: String
    public var quota: KVQuota
    /// Every readable file by name (this device's own included), as last read or written.
    public private(set) var files: [String: KVReplica] = [:]
    /// The winning entry of every key across ``files`` (removals included).
    public private(set) var merged: [String: KVEntry] = [:]
    /// The latest `modified` of any entry in ``merged``: a new write is never older. Entries
    /// stamped ahead of this device's clock (``ahead``) never move it.
    public private(set) var clock: Int64 = 0
    /// Entries left out of ``merged`` at the last ``replace(_:now:)`` because they are stamped
    /// more than ``maxAhead`` after this device's clock, by file name then key. Obeying one would
    /// pin ``clock`` there: every later write would tie with it, and lose to a greater device id.
    /// They count again once this device's clock reaches them (checked on every replace).
    public private(set) var ahead: [KVAheadEntry] = []
    /// Keys left out of ``merged`` at the last ``replace(_:now:)`` because the store's quotas do
    /// not hold them (other devices' files can carry anything): a key too long, or past
    /// `maxKeys`/`maxBytes` once the older keys are counted — the oldest values are kept, so a
    /// flood of new keys never pushes out what the store had. Sorted.
    public private(set) var overQuota: [String] = []
    /// How far (microseconds) an entry's `modified` may be ahead of this device's clock: 60 s.
    public static let maxAhead: Int64 = 60_000_000

    public init(device: String, quota: KVQuota) {
        self.device = device
        self.quota = quota
    }

    /// This device's file name.
    public var ownFile: String { device + ".json" }
    /// This device's own entries (what its file holds).
    public var own: KVReplica { files[ownFile] ?? KVReplica(device: device) }
    /// Whether any file of another device was read.
    public var hasOtherDevices: Bool { files.values.contains { $0.device != device } }

    public func value(forKey key: String) -> KVValue? { merged[key]?.value }

    /// Every key that has a value.
    public var values: [String: KVValue] { merged.compactMapValues(\.value) }

    public var usage: KVUsage { KVStoreState.usage(of: merged) }

    static func usage(of entries: [String: KVEntry]) -> KVUsage {
        var usage = KVUsage()
        for (key, entry) in entries {
            guard let value = entry.value else { continue }
            usage.keys += 1
            usage.bytes += KVQuota.bytes(key: key, value: value)
        }
        return usage
    }

    /// Whether other devices' values would put the store past a quota (the keys left out: ``overQuota``).
    public var isOverQuota: Bool { !overQuota.isEmpty }

    /// This device's file after setting (`value`) or removing (nil) `key` at `now` (microseconds):
    /// nothing changes until ``replace(file:with:)`` records it once it is on disk.
    ///
    /// - Throws: ``KeyValueError/Code/quotaExceeded`` when the write would add a key past
    ///   `maxKeys` or bytes past `maxBytes`; `invalidKey` / `quotaExceeded` for the key itself.
    public func writing(_ value: KVValue?, forKey key: String, now: Int64) throws(KeyValueError) -> KVReplica {
        try quota.check(key: key)
        let horizon = KVStoreState.horizon(now)
        let modified = max(min(now, KVReplica.maxModified), clock == KVReplica.maxModified ? clock : clock + 1)
        // ``clock`` is at most the horizon, so this happens only when an entry sits exactly on it.
        guard modified <= horizon else {
            throw KeyValueError(.storageFailed, "another device's entry is stamped \(KVStoreState.maxAhead / 1_000_000) s ahead of this device's clock; nothing was written, try again",
                                details: ["key": .string(key)])
        }
        var own = self.own
        own.entries[key] = KVEntry(value: value, modified: modified, device: device)
        own.trimRemovals()
        guard value != nil else { return own }
        var after = merged
        after[key] = own.entries[key]
        let before = usage, next = KVStoreState.usage(of: after)
        if next.keys > quota.maxKeys && next.keys > before.keys {
            throw KeyValueError(.quotaExceeded, "the store has \(before.keys) keys; at most \(quota.maxKeys) are allowed",
                                details: ["quota": .string("maxKeys"), "limit": .integer(Int64(quota.maxKeys)), "key": .string(key)])
        }
        if next.bytes > quota.maxBytes && next.bytes > before.bytes {
            throw KeyValueError(.quotaExceeded,
                "the store would hold \(next.bytes) bytes (keys and values as JSON); at most \(quota.maxBytes) are allowed",
                details: ["quota": .string("maxBytes"), "limit": .integer(Int64(quota.maxBytes)), "key": .string(key)])
        }
        return own
    }

    /// Records the files now on disk: `changes` maps a file name to its content (nil: gone or
    /// unreadable). `now` is this device's clock (microseconds): entries stamped more than
    /// ``maxAhead`` after it are left out (``ahead``), every file's entries checked again.
    /// Returns the keys whose value changed.
    @discardableResult
    public mutating func replace(_ changes: [String: KVReplica?], now: Int64) -> [String] {
        for (name, replica) in changes { files[name] = replica }
        let horizon = KVStoreState.horizon(now)
        var next: [String: KVEntry] = [:]
        var ahead: [KVAheadEntry] = []
        for (name, replica) in files {
            for (key, entry) in replica.entries {
                guard entry.modified <= horizon else {
                    ahead.append(KVAheadEntry(file: name, key: key, modified: entry.modified))
                    continue
                }
                clock = max(clock, entry.modified)
                if let current = next[key], !entry.wins(over: current) { continue }
                next[key] = entry
            }
        }
        self.ahead = ahead.sorted { ($0.file, $0.key) < ($1.file, $1.key) }
        overQuota = KVStoreState.applyQuota(quota, to: &next)
        let changed = Set(next.keys).union(merged.keys).filter { next[$0]?.value != merged[$0]?.value }
        merged = next
        return changed.sorted()
    }

    /// Leaves out of `entries` what `quota` does not hold: keys it refuses, then — oldest value
    /// first, ties by key, so every device that read the same files keeps the same keys — every
    /// value past `maxKeys` or `maxBytes`. Returns the keys left out, sorted.
    static func applyQuota(_ quota: KVQuota, to entries: inout [String: KVEntry]) -> [String] {
        var out: [String] = []
        for key in entries.keys where (try? quota.check(key: key)) == nil { out.append(key) }
        for key in out { entries[key] = nil }
        let live = entries.compactMap { key, entry in entry.value.map { (key, entry.modified, $0) } }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        var keys = 0, bytes = 0
        for (key, _, value) in live {
            let size = KVQuota.bytes(key: key, value: value)
            let (total, overflow) = bytes.addingReportingOverflow(size)
            guard keys < quota.maxKeys, !overflow, total <= quota.maxBytes else {
                entries[key] = nil
                out.append(key)
                continue
            }
            keys += 1
            bytes = total
        }
        return out.sorted()
    }

    /// `now` plus ``maxAhead``, without overflow.
    static func horizon(_ now: Int64) -> Int64 {
        let (sum, overflow) = now.addingReportingOverflow(maxAhead)
        return overflow ? .max : sum
    }

    /// The winning entry of every key: last writer wins, ties to the greater device id.
    public static func merge(_ replicas: some Sequence<KVReplica>) -> [String: KVEntry] {
        var result: [String: KVEntry] = [:]
        for replica in replicas {
            for (key, entry) in replica.entries {
                if let current = result[key], !entry.wins(over: current) { continue }
                result[key] = entry
            }
        }
        return result
    }
}

/// An entry stamped too far ahead of this device's clock to count yet (``KVStoreState/ahead``).
public struct KVAheadEntry: Sendable, Hashable {
    public var file: String
    public var key: String
    public var modified: Int64
}
