public import UbiquityPredicate

/// The one answer to a request: `{"id": 1, "result": {...}}` or `{"id": 1, "error": {...}}`.
/// `id` is null only when the request's own id could not be read.
public struct Response: Sendable, Hashable {
    public var id: RequestID?
    public var outcome: Result<JSONValue, ProtocolError>

    public init(id: RequestID?, result: JSONValue) {
        self.id = id
        self.outcome = .success(result)
    }

    public init(id: RequestID?, error: ProtocolError) {
        self.id = id
        self.outcome = .failure(error)
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["id": id?.json ?? .null]
        switch outcome {
        case .success(let result): object["result"] = result
        case .failure(let error): object["error"] = error.json
        }
        return .object(object)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "response")
        id = RequestID(json: reader.object["id"] ?? .null)
        if reader.has("error") {
            outcome = .failure(try ProtocolError(json: try reader.value("error")))
        } else {
            outcome = .success(try reader.value("result"))
        }
    }
}

/// A server line is either a response (it has `id`) or an event (it has `event`).
public enum ServerMessage: Sendable, Hashable {
    case response(Response)
    case event(ServerEvent)

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "message")
        if reader.object["event"] != nil { self = .event(try ServerEvent(json: json)) }
        else { self = .response(try Response(json: json)) }
    }

    public var json: JSONValue {
        switch self {
        case .response(let r): r.json
        case .event(let e): e.json
        }
    }
}

// MARK: - Results

/// `hello`'s result: who answered, which protocol, the limits, and who the server thinks you are.
public struct HelloResult: Sendable, Hashable {
    public var server: String
    public var version: String
    public var protocolVersion: Int
    public var limits: ServerLimits
    public var peerUID: UInt32
    public var peerGID: UInt32

    public init(server: String = "ubiquityd", version: String, protocolVersion: Int = WireProtocol.version,
                limits: ServerLimits, peerUID: UInt32, peerGID: UInt32) {
        self.server = server
        self.version = version
        self.protocolVersion = protocolVersion
        self.limits = limits
        self.peerUID = peerUID
        self.peerGID = peerGID
    }

    public var json: JSONValue {
        .object(["server": .string(server), "version": .string(version), "protocol": .integer(Int64(protocolVersion)),
                 "limits": limits.json,
                 "peer": .object(["uid": .integer(Int64(peerUID)), "gid": .integer(Int64(peerGID))])])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "hello result")
        server = try reader.string("server")
        version = try reader.string("version")
        protocolVersion = try reader.int("protocol")
        limits = try ServerLimits(json: try reader.value("limits"))
        let peer = try FieldReader(try reader.value("peer"), context: "peer")
        peerUID = UInt32(truncatingIfNeeded: try peer.int("uid"))
        peerGID = UInt32(truncatingIfNeeded: try peer.int("gid"))
    }
}

/// One container as `containers.list` and `status` show it.
public struct ContainerInfo: Sendable, Hashable {
    public var id: String
    /// The container directory.
    public var path: String
    /// False when the directory is missing or unreadable (it is watched for coming back).
    public var available: Bool
    /// Indexed items (files, directories and packages) in the container.
    public var items: Int
    public var ownerUID: UInt32
    public var groupGID: UInt32?
    /// Declared package extensions → type identifier.
    public var packageTypes: [String: String]

    public init(id: String, path: String, available: Bool, items: Int, ownerUID: UInt32, groupGID: UInt32?,
                packageTypes: [String: String]) {
        self.id = id
        self.path = path
        self.available = available
        self.items = items
        self.ownerUID = ownerUID
        self.groupGID = groupGID
        self.packageTypes = packageTypes
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "path": .string(path), "available": .bool(available), "items": .integer(Int64(items)),
            "owner": .integer(Int64(ownerUID)),
            "packageTypes": .object(packageTypes.mapValues(JSONValue.string)),
        ]
        if let groupGID { object["group"] = .integer(Int64(groupGID)) }
        return .object(object)
    }

    public init(json: JSONValue, context: String = "container") throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        id = try reader.string("id")
        path = try reader.string("path")
        available = try reader.bool("available")
        items = try reader.int("items")
        ownerUID = UInt32(truncatingIfNeeded: try reader.int("owner"))
        groupGID = try reader.optionalInt("group").map { UInt32(truncatingIfNeeded: $0) }
        var types: [String: String] = [:]
        for (key, value) in try reader.optionalObject("packageTypes") ?? [:] {
            if case .string(let s) = value { types[key] = s }
        }
        packageTypes = types
    }
}

/// `container.url`'s result.
public struct ContainerURLResult: Sendable, Hashable {
    public var container: String
    /// The container directory (what `URLForUbiquityContainerIdentifier` returns).
    public var path: String
    /// `path/Documents`, created on demand.
    public var documents: String

    public init(container: String, path: String, documents: String) {
        self.container = container
        self.path = path
        self.documents = documents
    }

    public var json: JSONValue {
        .object(["container": .string(container), "path": .string(path), "documents": .string(documents),
                 "url": .string("file://" + path + "/")])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "container.url result")
        container = try reader.string("container")
        path = try reader.string("path")
        documents = try reader.string("documents")
    }
}

/// `status`'s result: the daemon's health at a glance.
public struct StatusResult: Sendable, Hashable {
    public struct Unwatched: Sendable, Hashable {
        public var container: String
        public var path: String
        public var reason: String
        public init(container: String, path: String, reason: String) {
            self.container = container
            self.path = path
            self.reason = reason
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
        return .object([
            "version": .string(version), "pid": .integer(Int64(pid)), "uptime": .double(uptimeSeconds),
            "socket": .string(socket), "containers": .array(containers.map(\.json)), "items": .integer(Int64(items)),
            "watches": .object(watches),
            "unwatched": .array(unwatched.map {
                .object(["container": .string($0.container), "path": .string($0.path), "reason": .string($0.reason)])
            }),
            "overflows": .integer(Int64(overflows)), "resyncs": .integer(Int64(resyncs)),
            "connections": .integer(Int64(connections)), "liveQueries": .integer(Int64(liveQueries)),
            "degraded": .array(degraded.map(JSONValue.string)),
        ])
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
        unwatched = try reader.list("unwatched") { (value, context) throws(ProtocolError) in
            let u = try FieldReader(value, context: context)
            return Unwatched(container: try u.string("container"), path: try u.string("path"), reason: try u.string("reason"))
        }
        overflows = try reader.int("overflows")
        resyncs = try reader.int("resyncs")
        connections = try reader.int("connections")
        liveQueries = try reader.int("liveQueries")
        degraded = try reader.optionalStrings("degraded") ?? []
    }
}
