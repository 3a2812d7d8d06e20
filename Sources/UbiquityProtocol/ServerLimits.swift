public import UbiquityJSON

/// The limits a server enforces; `hello` publishes them so clients can stay inside.
public struct ServerLimits: Sendable, Hashable {
    /// Longest request line in bytes, without its `\n`. Longer: `request.tooLarge`, connection closed.
    public var maxLineBytes: Int = 1 << 20
    /// Concurrent connections; one more is answered `server.busy` and closed.
    public var maxConnections: Int = 256
    /// Queries (live or stopped, until released) one connection may hold.
    public var maxQueriesPerConnection: Int = 64
    /// Pending items per query before the subscriber receives a `query.reset` instead.
    public var pendingItemsPerQuery: Int = 10_000
    /// The batching interval used when `query.start` names none, in seconds.
    public var defaultBatchingInterval: Double = 0.05
    /// Sort keys one query may name: each key's value is kept for every result.
    public var maxSortKeys: Int = 8
    /// Entries of one query's `attributes`.
    public var maxAttributes: Int = 64
    /// Queries one user (uid) may hold across all its connections: one local user cannot take
    /// every query slot of the system service.
    public var maxQueriesPerPeer: Int = 1_024
    /// Result items one user may hold across all its queries (counted when each gathers):
    /// what bounds the memory a user's queries take, whatever the depth of paths.
    public var maxResultItemsPerPeer: Int = 4_000_000
    /// Document lock watches (`document.watch`) one connection, and one user across its
    /// connections, may hold; each keeps at most one pending `document.lockChanged`.
    public var maxDocumentWatchesPerConnection: Int = 256
    public var maxDocumentWatchesPerPeer: Int = 4_096
    /// Coordinated-write locks (`document.lock`) one connection, and one user, may hold at once.
    public var maxDocumentLocksPerConnection: Int = 64
    public var maxDocumentLocksPerPeer: Int = 1_024

    public init() {}

    /// The integer limits by their wire names: the one list `json` and `init(json:)` both read,
    /// so a limit added here is published and read back without spelling it twice.
    private static var integerLimits: [(name: String, keyPath: WritableKeyPath<ServerLimits, Int>)] {
        [("maxLineBytes", \.maxLineBytes), ("maxConnections", \.maxConnections),
         ("maxQueriesPerConnection", \.maxQueriesPerConnection), ("pendingItemsPerQuery", \.pendingItemsPerQuery),
         ("maxSortKeys", \.maxSortKeys), ("maxAttributes", \.maxAttributes), ("maxQueriesPerPeer", \.maxQueriesPerPeer),
         ("maxResultItemsPerPeer", \.maxResultItemsPerPeer),
         ("maxDocumentWatchesPerConnection", \.maxDocumentWatchesPerConnection),
         ("maxDocumentWatchesPerPeer", \.maxDocumentWatchesPerPeer),
         ("maxDocumentLocksPerConnection", \.maxDocumentLocksPerConnection),
         ("maxDocumentLocksPerPeer", \.maxDocumentLocksPerPeer)]
    }

    public var json: JSONValue {
        var fields: [String: JSONValue] = ["defaultBatchingInterval": .double(defaultBatchingInterval)]
        for limit in Self.integerLimits { fields[limit.name] = .integer(Int64(self[keyPath: limit.keyPath])) }
        return .object(fields)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let object = try FieldReader(json, context: "limits")
        defaultBatchingInterval = try object.optionalDouble("defaultBatchingInterval") ?? defaultBatchingInterval
        for limit in Self.integerLimits {
            if let value = try object.optionalInt(limit.name) { self[keyPath: limit.keyPath] = value }
        }
    }
}
