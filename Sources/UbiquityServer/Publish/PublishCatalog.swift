import UbiquityJSON

/// Every published snapshot, by token, and the rules over them: the per-user and global bounds,
/// who may revoke or list what, expiry, and the index file's form. Pure: ``PublishStore`` does
/// the I/O and holds one of these under a lock.
struct PublishCatalog: Sendable {
    private(set) var snapshots: [String: PublishedSnapshot] = [:]

    enum Lookup: Equatable {
        case serve(PublishedSnapshot)
        /// Past its expiry: answered 410 and removed.
        case expired(PublishedSnapshot)
        /// Never published, revoked, or still being copied.
        case unknown
    }

    init() {}

    /// What a GET of `token` finds at `now`.
    func lookup(_ token: String, now: Double) -> Lookup {
        guard let snapshot = snapshots[token], snapshot.complete else { return .unknown }
        return snapshot.expires <= now ? .expired(snapshot) : .serve(snapshot)
    }

    /// Holds a place for `snapshot` (not yet complete) if its user stays within the bounds.
    mutating func reserve(_ snapshot: PublishedSnapshot, settings: PublishSettings) -> Result<Void, PublishError> {
        let own = snapshots.values.filter { $0.uid == snapshot.uid }
        if snapshots.count >= PublishSettings.maxSnapshots {
            return .failure(PublishError(.tooMany, "the daemon holds \(PublishSettings.maxSnapshots) published snapshots, its maximum; try again when some expire",
                                         details: ["limit": .integer(Int64(PublishSettings.maxSnapshots))]))
        }
        if own.count >= settings.maxItemsPerPeer {
            return .failure(PublishError(.tooMany, "uid \(snapshot.uid) holds \(own.count) published snapshots, the limit per user (max_items_per_peer); revoke some with item.unpublish",
                                         details: ["limit": .integer(Int64(settings.maxItemsPerPeer))]))
        }
        let held = own.reduce(Int64(0)) { $0 + $1.size }
        let limit = Int64(settings.maxBytesPerPeer)
        if snapshot.size > limit - held {
            return .failure(PublishError(.tooLarge, "the item is \(snapshot.size) bytes and uid \(snapshot.uid) already publishes \(held); together they may hold at most \(limit) (max_bytes_per_peer)",
                                         details: ["limit": .integer(limit), "size": .integer(snapshot.size), "held": .integer(held)]))
        }
        var pending = snapshot
        pending.complete = false
        snapshots[snapshot.token] = pending
        return .success(())
    }

    /// Makes a reserved snapshot servable, with the size actually copied.
    mutating func complete(_ token: String, size: Int64) {
        snapshots[token]?.complete = true
        snapshots[token]?.size = size
    }

    /// Drops a snapshot whatever its state (a failed copy, an expiry).
    @discardableResult
    mutating func remove(_ token: String) -> PublishedSnapshot? { snapshots.removeValue(forKey: token) }

    /// Revokes `token` for `uid`: nil when it is not that user's (whether it exists is not told).
    mutating func revoke(_ token: String, uid: UInt32) -> PublishedSnapshot? {
        guard let snapshot = snapshots[token], snapshot.uid == uid, snapshot.complete else { return nil }
        return snapshots.removeValue(forKey: token)
    }

    /// Removes and returns every complete snapshot expired at `now`.
    mutating func removeExpired(now: Double) -> [PublishedSnapshot] {
        let expired = snapshots.values.filter { $0.complete && $0.expires <= now }
        for snapshot in expired { snapshots[snapshot.token] = nil }
        return expired
    }

    /// `uid`'s complete, unexpired snapshots, soonest expiry first.
    func owned(by uid: UInt32, now: Double) -> [PublishedSnapshot] {
        snapshots.values.filter { $0.uid == uid && $0.complete && $0.expires > now }
            .sorted { ($0.expires, $0.token) < ($1.expires, $1.token) }
    }

    /// The file names of every snapshot, complete or being copied (what the directory may hold).
    var fileNames: Set<String> { Set(snapshots.values.map(\.file)) }

    // MARK: - The index file

    static let format = "ubiquity.publish"
    static let version: Int64 = 1

    /// The index file's content: the complete snapshots, in token order.
    var indexJSON: JSONValue {
        .object(["format": .string(Self.format), "version": .integer(Self.version),
                 "snapshots": .array(snapshots.values.filter(\.complete).sorted { $0.token < $1.token }.map(\.json))])
    }

    /// A saved index; entries that are malformed or beyond ``PublishSettings/maxSnapshots`` are
    /// dropped (their files are then removed as strays). Nil when it is not an index of this format.
    init?(indexJSON: JSONValue) {
        guard case .object(let o) = indexJSON, o["format"] == .string(Self.format), o["version"] == .integer(Self.version),
              case .array(let entries)? = o["snapshots"] else { return nil }
        var files: Set<String> = []
        for entry in entries.prefix(PublishSettings.maxSnapshots) {
            guard let snapshot = PublishedSnapshot(json: entry), snapshots[snapshot.token] == nil,
                  files.insert(snapshot.file).inserted else { continue }
            snapshots[snapshot.token] = snapshot
        }
    }
}
