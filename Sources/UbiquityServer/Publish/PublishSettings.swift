/// `[publish]` of the configuration (docs/configuration.md): whether the HTTP listener that serves
/// published snapshots runs, where, and the bounds of what each user may publish. Pure data.
public struct PublishSettings: Sendable, Hashable {
    /// Where the listener binds; nil (the default): no listener, and `item.publish` answers `publish.disabled`.
    public var listen: ListenAddress?
    /// Whether `listen` may be an address other hosts can reach (default false: loopback only).
    public var allowNonLoopback = false
    /// The expiry of a publish that names none.
    public var defaultExpiry: Duration = .seconds(86_400)
    /// The latest expiry a publish may ask for, from now.
    public var maxExpiry: Duration = .seconds(30 * 86_400)
    /// How many unexpired snapshots one user (uid) may hold.
    public var maxItemsPerPeer = 32
    /// How many bytes one user's unexpired snapshots may hold together (one snapshot at most this).
    public var maxBytesPerPeer = 64 << 20

    /// How many snapshots the daemon holds at most, all users together (not configurable: it
    /// bounds the index file, which is read whole at start).
    public static let maxSnapshots = 10_000
    /// The most bytes of the index file read at start.
    public static let maxIndexBytes = 4 << 20

    public init() {}
}
