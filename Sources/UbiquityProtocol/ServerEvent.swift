public import UbiquityJSON

/// Everything the server sends without being asked. Query events name their query.
public enum ServerEvent: Sendable, Hashable {
    case gatheringStarted(query: Int)
    case gatheringProgress(query: Int, count: Int)
    /// The complete, sorted result set (or, `since` a clock, the difference); exactly one per
    /// query. `clock` is the index's clock the answer is as of. Not `verified` (`"verified":false`):
    /// answered from the saved index before the file system was checked (`"freshness":"saved"`);
    /// `query.verified` follows.
    case gatheringFinished(query: Int, answer: GatheringAnswer, clock: String? = nil, verified: Bool = true)
    /// `clock`: the index's clock the subscriber is at once it applied this update.
    case update(query: Int, added: [WireItem], changed: [WireItem], removed: [WireItem], clock: String? = nil)
    /// Events were lost and the container rescanned; `changes` real changes followed as updates.
    case resync(query: Int, container: String, reason: String, changes: Int)
    /// An unverified answer is checked: the differences the check found came before, as updates.
    case verified(query: Int)
    /// The subscriber fell behind: the whole current result set replaces what it had.
    case reset(query: Int, results: [WireItem], clock: String? = nil)
    /// A subtree cannot be watched; it is kept correct by periodic rescans.
    case unwatched(query: Int, container: String, path: String, reason: String)
    case containerUnavailable(query: Int, container: String, reason: String)
    case containerAvailable(query: Int, container: String)
    /// The peer may no longer read the container (a configuration reload changed its owner or
    /// group): the query is stopped and sends nothing more.
    case containerForbidden(query: Int, container: String, reason: String)
    /// A non-live query finished, or the server stopped the query (its container was removed).
    case stopped(query: Int, reason: String)
    /// The daemon is stopping; the connection closes after this line.
    case shuttingDown(reason: String)
    /// A watched item's coordinated-write lock was taken (`locked`) or given back; `yours` when the
    /// holder is this connection.
    case documentLockChanged(watch: Int, path: String, locked: Bool, yours: Bool)

    /// The one list of event names (`event` on the wire).
    public enum names {
        public static let gatheringStarted = "query.gatheringStarted"
        public static let gatheringProgress = "query.gatheringProgress"
        public static let gatheringFinished = "query.gatheringFinished"
        public static let update = "query.update"
        public static let verified = "query.verified"
        public static let resync = "query.resync"
        public static let reset = "query.reset"
        public static let unwatched = "query.unwatched"
        public static let stopped = "query.stopped"
        public static let containerUnavailable = "container.unavailable"
        public static let containerAvailable = "container.available"
        public static let containerForbidden = "container.forbidden"
        public static let shuttingDown = "server.shuttingDown"
        public static let documentLockChanged = "document.lockChanged"
        /// Every event this version knows; a client ignores the others (a newer server's).
        public static let all: Set<String> = [gatheringStarted, gatheringProgress, gatheringFinished, update, verified, resync, reset,
                                              unwatched, stopped, containerUnavailable, containerAvailable, containerForbidden,
                                              shuttingDown, documentLockChanged]
    }

    public var name: String {
        switch self {
        case .gatheringStarted: ServerEvent.names.gatheringStarted
        case .gatheringProgress: ServerEvent.names.gatheringProgress
        case .gatheringFinished: ServerEvent.names.gatheringFinished
        case .update: ServerEvent.names.update
        case .verified: ServerEvent.names.verified
        case .resync: ServerEvent.names.resync
        case .reset: ServerEvent.names.reset
        case .unwatched: ServerEvent.names.unwatched
        case .containerUnavailable: ServerEvent.names.containerUnavailable
        case .containerAvailable: ServerEvent.names.containerAvailable
        case .containerForbidden: ServerEvent.names.containerForbidden
        case .stopped: ServerEvent.names.stopped
        case .shuttingDown: ServerEvent.names.shuttingDown
        case .documentLockChanged: ServerEvent.names.documentLockChanged
        }
    }

    /// The `document.watch` this event is about.
    public var watch: Int? {
        if case .documentLockChanged(let watch, _, _, _) = self { return watch }
        return nil
    }

    /// The query this event is about; nil for server-wide events.
    public var query: Int? {
        switch self {
        case .gatheringStarted(let q), .gatheringProgress(let q, _), .gatheringFinished(let q, _, _, _), .update(let q, _, _, _, _), .verified(let q),
             .resync(let q, _, _, _), .reset(let q, _, _), .unwatched(let q, _, _, _), .containerUnavailable(let q, _, _),
             .containerAvailable(let q, _), .containerForbidden(let q, _, _), .stopped(let q, _):
            q
        case .shuttingDown, .documentLockChanged: nil
        }
    }

    /// The index's clock this event brings its subscriber to, for the events that carry one.
    public var clock: String? {
        switch self {
        case .gatheringFinished(_, _, let clock, _), .update(_, _, _, _, let clock), .reset(_, _, let clock): clock
        default: nil
        }
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["event": .string(name)]
        if let query { object["query"] = .integer(Int64(query)) }
        func items(_ list: [WireItem]) -> JSONValue { .array(list.map(\.json)) }
        switch self {
        case .gatheringStarted, .verified: break
        case .gatheringProgress(_, let count): object["count"] = .integer(Int64(count))
        case .gatheringFinished(_, .results(let results, let fresh), let clock, let verified):
            if !verified { object["verified"] = .bool(false) }
            object["results"] = items(results)
            object["count"] = .integer(Int64(results.count))
            if let fresh {
                object["fresh"] = .bool(true)
                object["freshCode"] = .string(fresh.code)
                object["reason"] = .string(fresh.reason)
            }
            if let clock { object["clock"] = .string(clock) }
        case .gatheringFinished(_, .changes(let since, let added, let changed, let removed, let count), let clock, let verified):
            if !verified { object["verified"] = .bool(false) }
            object["since"] = .string(since)
            object["added"] = items(added)
            object["changed"] = items(changed)
            object["removed"] = items(removed)
            object["count"] = .integer(Int64(count))
            if let clock { object["clock"] = .string(clock) }
        case .reset(_, let results, let clock):
            object["results"] = items(results)
            object["count"] = .integer(Int64(results.count))
            if let clock { object["clock"] = .string(clock) }
        case .update(_, let added, let changed, let removed, let clock):
            object["added"] = items(added)
            object["changed"] = items(changed)
            object["removed"] = items(removed)
            if let clock { object["clock"] = .string(clock) }
        case .resync(_, let container, let reason, let changes):
            object["container"] = .string(container)
            object["reason"] = .string(reason)
            object["changes"] = .integer(Int64(changes))
        case .unwatched(_, let container, let path, let reason):
            object["container"] = .string(container)
            object["path"] = .string(path)
            object["reason"] = .string(reason)
        case .containerUnavailable(_, let container, let reason), .containerForbidden(_, let container, let reason):
            object["container"] = .string(container)
            object["reason"] = .string(reason)
        case .containerAvailable(_, let container): object["container"] = .string(container)
        case .stopped(_, let reason), .shuttingDown(let reason): object["reason"] = .string(reason)
        case .documentLockChanged(let watch, let path, let locked, let yours):
            object["watch"] = .integer(Int64(watch))
            object["path"] = .string(path)
            object["locked"] = .bool(locked)
            object["yours"] = .bool(yours)
        }
        return .object(object)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        try self.init(json: json, scannedItems: [:])
    }

    /// - Parameter scannedItems: Lists of items already read from the line, by key.
    init(json: JSONValue, scannedItems: [String: [WireItem]]) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "event")
        let name = try reader.string("event")
        let names = ServerEvent.names.self
        if name == names.shuttingDown {
            self = .shuttingDown(reason: try reader.optionalString("reason") ?? "")
            return
        }
        if name == names.documentLockChanged {
            self = .documentLockChanged(watch: try reader.int("watch"), path: try reader.string("path"),
                                        locked: try reader.bool("locked"), yours: try reader.optionalBool("yours") ?? false)
            return
        }
        let query = try reader.int("query")
        switch name {
        case names.gatheringStarted: self = .gatheringStarted(query: query)
        case names.verified: self = .verified(query: query)
        case names.gatheringProgress: self = .gatheringProgress(query: query, count: try reader.int("count"))
        case names.gatheringFinished:
            let clock = try reader.optionalString("clock")
            let verified = try reader.optionalBool("verified") ?? true
            if let since = try reader.optionalString("since") {
                self = .gatheringFinished(query: query, answer: .changes(
                    since: since, added: try WireItem.list(reader, "added", scanned: scannedItems), changed: try WireItem.list(reader, "changed", scanned: scannedItems),
                    removed: try WireItem.list(reader, "removed", scanned: scannedItems), count: try reader.int("count")), clock: clock,
                    verified: verified)
            } else {
                let fresh = try reader.optionalBool("fresh") == true
                    ? FreshAnswer(code: try reader.optionalString("freshCode") ?? "", reason: try reader.optionalString("reason") ?? "")
                    : nil
                self = .gatheringFinished(query: query, answer: .results(try WireItem.list(reader, "results", scanned: scannedItems), fresh: fresh),
                                          clock: clock, verified: verified)
            }
        case names.reset:
            self = .reset(query: query, results: try WireItem.list(reader, "results", scanned: scannedItems), clock: try reader.optionalString("clock"))
        case names.update:
            self = .update(query: query, added: try WireItem.list(reader, "added", scanned: scannedItems),
                           changed: try WireItem.list(reader, "changed", scanned: scannedItems), removed: try WireItem.list(reader, "removed", scanned: scannedItems),
                           clock: try reader.optionalString("clock"))
        case names.resync:
            self = .resync(query: query, container: try reader.string("container"),
                           reason: try reader.optionalString("reason") ?? "", changes: try reader.optionalInt("changes") ?? 0)
        case names.unwatched:
            self = .unwatched(query: query, container: try reader.string("container"), path: try reader.string("path"),
                              reason: try reader.optionalString("reason") ?? "")
        case names.containerUnavailable:
            self = .containerUnavailable(query: query, container: try reader.string("container"),
                                         reason: try reader.optionalString("reason") ?? "")
        case names.containerAvailable: self = .containerAvailable(query: query, container: try reader.string("container"))
        case names.containerForbidden:
            self = .containerForbidden(query: query, container: try reader.string("container"),
                                       reason: try reader.optionalString("reason") ?? "")
        case names.stopped: self = .stopped(query: query, reason: try reader.optionalString("reason") ?? "")
        default: throw .malformed("unknown event '\(name)'", field: "event")
        }
    }
}
