import Glibc
public import Logging
public import UbiquityIndex
public import UbiquityProtocol

/// What every session needs from the daemon. Immutable; shared by all connections.
public struct ServerContext: Sendable {
    public var engine: QueryEngine
    public var registry: ContainerRegistry
    public var limits: ServerLimits
    public var logger: Logger
    /// Builds the `status` result for a peer (only the containers it may read are listed).
    public var status: @Sendable (PeerCredentials) async -> StatusResult
    /// Containers' item counts for `containers.list`.
    public var itemCounts: @Sendable () async -> [ContainerID: Int]
    /// What each user holds across its connections (``ServerLimits/maxQueriesPerPeer``).
    public var budget: PeerBudget
    /// Coordinated-write locks and their watchers, across connections.
    public var documentLocks: DocumentLocks
    /// Every container's key-value store (docs/kv-store.md).
    public var keyValue: KeyValueStores
    /// Every container's relational stores (docs/stores.md).
    public var stores: RelationalStores
    /// Published snapshots and their listener's address; nil when `[publish]` has no listener.
    var publishing: PublishStore?
    /// Whether `[sync]` names a sync engine the daemon follows (for `status`, the sync
    /// attributes and files on demand).
    var followsSyncEngine = false
    /// How files on demand reach that engine (nil: none is configured).
    var syncEngineLink: SyncEngineLink?

    public init(engine: QueryEngine, registry: ContainerRegistry, limits: ServerLimits, logger: Logger,
                status: @escaping @Sendable (PeerCredentials) async -> StatusResult,
                itemCounts: @escaping @Sendable () async -> [ContainerID: Int], budget: PeerBudget = PeerBudget(),
                documentLocks: DocumentLocks? = nil, keyValue: KeyValueStores? = nil, stores: RelationalStores? = nil) {
        self.engine = engine
        self.registry = registry
        self.limits = limits
        self.logger = logger
        self.status = status
        self.itemCounts = itemCounts
        self.budget = budget
        self.documentLocks = documentLocks ?? DocumentLocks(limits: limits)
        self.keyValue = keyValue ?? KeyValueStores(logger: logger)
        self.keyValue.attach(registry)
        self.stores = stores ?? RelationalStores(stateDirectory: self.keyValue.stateDirectory, device: self.keyValue.device, logger: logger)
        self.stores.attach(registry)
    }

    var defaultBatching: Duration { .milliseconds(Int64((limits.defaultBatchingInterval * 1000).rounded())) }
}
