public import UbiquityJSON

/// `status`'s result: the daemon's health at a glance.
public struct StatusResult: OperationResult, Hashable {
    /// A subtree or entry the daemon could not watch or index, and why (`unwatched`, `skipped`).
    public struct Unwatched: Sendable, Hashable {
        public var container: String
        public var path: String
        public var reason: String
        public init(container: String, path: String, reason: String) {
            self.container = container
            self.path = path
            self.reason = reason
        }

        var json: JSONValue { .object(["container": .string(container), "path": .string(path), "reason": .string(reason)]) }

        init(json: JSONValue, context: String) throws(ProtocolError) {
            let reader = try FieldReader(json, context: context)
            self.init(container: try reader.string("container"), path: try reader.string("path"), reason: try reader.string("reason"))
        }
    }

    public var version: String
    public var pid: Int
    public var uptimeSeconds: Double
    public var socket: String
    public var containers: [ContainerInfo]
    public var items: Int
    public var watchesUsed: Int
    public var watchBudget: Int
    public var kernelWatchLimit: Int?
    /// Subtrees kept correct by periodic rescans because they could not be watched.
    public var unwatched: [Unwatched]
    public var overflows: Int
    public var resyncs: Int
    public var connections: Int
    public var liveQueries: Int
    /// One sentence per degraded condition; empty when all is well.
    public var degraded: [String]
    /// Entries that could not be indexed (a name that is not UTF-8, a directory the daemon may not
    /// read): the latest 100, in the same shape as ``unwatched``; ``skippedTotal`` counts them all.
    public var skipped: [Unwatched] = []
    public var skippedTotal = 0
    /// Every relational store the daemon has open in the containers listed, with each device's
    /// sync state.
    public var stores: [StoreStatus] = []
    /// The sync engine connection, when one is configured (`[sync]`).
    public var syncEngine: SyncEngineStatus?

    public init(version: String, pid: Int, uptimeSeconds: Double, socket: String, containers: [ContainerInfo],
                items: Int, watchesUsed: Int, watchBudget: Int, kernelWatchLimit: Int?, unwatched: [Unwatched],
                overflows: Int, resyncs: Int, connections: Int, liveQueries: Int, degraded: [String]) {
        self.version = version
        self.pid = pid
        self.uptimeSeconds = uptimeSeconds
        self.socket = socket
        self.containers = containers
        self.items = items
        self.watchesUsed = watchesUsed
        self.watchBudget = watchBudget
        self.kernelWatchLimit = kernelWatchLimit
        self.unwatched = unwatched
        self.overflows = overflows
        self.resyncs = resyncs
        self.connections = connections
        self.liveQueries = liveQueries
        self.degraded = degraded
    }

    public var json: JSONValue {
        var watches: [String: JSONValue] = ["used": .integer(Int64(watchesUsed)), "budget": .integer(Int64(watchBudget))]
        if let kernelWatchLimit { watches["kernelLimit"] = .integer(Int64(kernelWatchLimit)) }
        var fields: [String: JSONValue] = [
            "version": .string(version), "pid": .integer(Int64(pid)), "uptime": .double(uptimeSeconds),
            "socket": .string(socket), "containers": .array(containers.map(\.json)), "items": .integer(Int64(items)),
            "watches": .object(watches),
            "unwatched": .array(unwatched.map(\.json)),
            "overflows": .integer(Int64(overflows)), "resyncs": .integer(Int64(resyncs)),
            "connections": .integer(Int64(connections)), "liveQueries": .integer(Int64(liveQueries)),
            "degraded": .array(degraded.map(JSONValue.string)),
            "skipped": .array(skipped.map(\.json)),
            "skippedTotal": .integer(Int64(skippedTotal)),
            "stores": .array(stores.map(\.json)),
        ]
        if let syncEngine { fields["syncEngine"] = syncEngine.json }
        return .object(fields)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "status result")
        version = try reader.string("version")
        pid = try reader.int("pid")
        uptimeSeconds = try reader.optionalDouble("uptime") ?? 0
        socket = try reader.string("socket")
        containers = try reader.list("containers") { (value, context) throws(ProtocolError) in
            try ContainerInfo(json: value, context: context)
        }
        items = try reader.int("items")
        let watches = try FieldReader(try reader.value("watches"), context: "watches")
        watchesUsed = try watches.int("used")
        watchBudget = try watches.int("budget")
        kernelWatchLimit = try watches.optionalInt("kernelLimit")
        unwatched = try reader.list("unwatched", Unwatched.init(json:context:))
        overflows = try reader.int("overflows")
        resyncs = try reader.int("resyncs")
        connections = try reader.int("connections")
        liveQueries = try reader.int("liveQueries")
        degraded = try reader.optionalStrings("degraded") ?? []
        if case .array = reader.object["skipped"] {
            skipped = try reader.list("skipped", Unwatched.init(json:context:))
        }
        skippedTotal = try reader.optionalInt("skippedTotal") ?? 0
        if case .array = reader.object["stores"] {
            stores = try reader.list("stores") { (value, context) throws(ProtocolError) in try StoreStatus(json: value, context: context) }
        }
        if reader.has("syncEngine") { syncEngine = try SyncEngineStatus(json: try reader.value("syncEngine"), context: "syncEngine") }
    }
}
