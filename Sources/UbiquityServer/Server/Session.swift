import Glibc
import Logging
import Synchronization
import UbiquityIndex
import UbiquityJSON
import UbiquityProtocol

/// One client connection's protocol state: hello, the queries it holds, and how each request is
/// answered. Used by the connection's reading task only (requests are handled one at a time, in
/// order), so it needs no lock; events leave through the connection's ``ConnectionOutbox``,
/// written by a task of its own that never touches the session.
final class Session {
    let peer: PeerCredentials
    let context: ServerContext
    var helloDone = false
    /// Queries this connection holds (live or stopped, until released).
    var queries: [QueryID: QueryParameters] = [:]
    /// The containers each query was resolved to at its start (authorisation is re-checked on them).
    var queryContainers: [QueryID: [ContainerID]] = [:]
    /// How each query's results are written (its attributes, sorted once).
    var encoders: [QueryID: ResultEncoder<ResultItem>] = [:]
    /// The results each query gathered, as counted against the user's budget.
    var heldItems: [QueryID: Int] = [:]
    /// Identifies this connection to the shared ``DocumentLocks``.
    let connection: UInt64
    /// Every event of this connection — its queries', `document.lockChanged`, `kv.changed`, `store.changed` — leaves through it.
    let outbox: ConnectionOutbox
    /// The document watches this connection holds.
    var documentWatches: Set<Int> = []
    /// The key-value subscriptions this connection holds: number → container id.
    var keyValueSubscriptions: [Int: String] = [:]
    /// The relational stores this connection opened, by `container/store`: its handle and the store.
    var openStores: [String: (handle: Int, store: ContainerStore)] = [:]
    /// The live fetches (`store.watch`) this connection holds: number → store.
    var liveFetches: [Int: ContainerStore] = [:]

    private static let connections = Atomic<UInt64>(0)

    init(peer: PeerCredentials, context: ServerContext, outbox: ConnectionOutbox? = nil) {
        self.peer = peer
        self.context = context
        self.outbox = outbox ?? ConnectionOutbox(engine: context.engine)
        connection = Session.connections.add(1, ordering: .relaxed).newValue
    }

    /// What a request produced: the response's line, and a query whose events must now be forwarded.
    struct Outcome {
        /// The response.
        var line: OutgoingLine
        var startedQuery: StartedQuery?
        /// Run once the response is written: what starts a live fetch's events, which must not
        /// come before the response that started it.
        var afterResponse: (@Sendable () async -> Void)?

        init(response: Response, startedQuery: StartedQuery? = nil) {
            line = .bytes(JSONLine.encodeLine(response.json))
            self.startedQuery = startedQuery
        }

        /// A response written by a ``ResultEncoder``.
        init(line: OutgoingLine) {
            self.line = line
        }
    }

    /// A query the connection must now forward events of, and how its results are written.
    struct StartedQuery {
        var id: QueryID
        var live: Bool
        var containers: [ContainerID]
        var encoder: ResultEncoder<ResultItem>
    }

    /// Answers one line. Never throws: every failure is a response, rendered in one place.
    func handle(line: some Collection<UInt8>) async -> Outcome {
        var requestID: RequestID?
        do {
            let json = try JSONLine.decode(line)
            let request: Request
            do throws(PartialRequestError) { request = try Request(json: json) } catch {
                requestID = error.id
                throw error.error
            }
            requestID = request.id
            return try await handle(request)
        } catch let error as any ClientFacingError {
            let refusal = ProtocolError(rendering: error)
            // Who was refused and why, one journal line each (journald's rate limit bounds a flood);
            // a warning with its sentence when the trouble is the daemon's own.
            var metadata: Logger.Metadata = [
                "code": "\(refusal.code)", "request": "\(requestID.map { "\($0)" } ?? "-")", "peer_uid": "\(peer.uid)",
            ]
            if error.isDaemonTrouble { metadata["reason"] = "\(error.clientMessage)" }
            context.logger.log(level: error.isDaemonTrouble ? .warning : .info, "request refused", metadata: metadata)
            return Outcome(response: Response(id: requestID, error: refusal))
        } catch {
            // Not meant for clients: it may name paths or internals. The journal gets the details.
            context.logger.error("request failed", metadata: [
                "error": "\(String(reflecting: error))", "request": "\(requestID.map { "\($0)" } ?? "-")",
                "peer_uid": "\(peer.uid)",
            ])
            return Outcome(response: Response(id: requestID, error: ProtocolError(.internal, Session.internalMessage)))
        }
    }

    /// What a client reads for any failure that is not a ``ClientFacingError``.
    static let internalMessage = "internal error; see the daemon's journal"

    /// Dispatches through the operation's handler (``SessionOperation``, `Handlers/`).
    private func handle(_ request: Request) async throws -> Outcome {
        guard let operation = request.operation as? any SessionOperation else {
            // A registered operation without a handler: OperationRegistryTests catches it first.
            throw ProtocolError(.requestUnknownOperation, "this daemon does not serve '\(request.operation.name)'",
                                details: ["op": .string(request.operation.name)])
        }
        guard helloDone || type(of: operation).allowedBeforeHello else {
            throw ProtocolError(.helloRequired,
                "send {\"id\":1,\"op\":\"hello\",\"version\":\(WireProtocol.version)} first: the first request of a connection must be hello")
        }
        return try await operation.respond(to: request.id, in: self)
    }

    /// The engine id of a query this connection holds; another connection's query is unknown here.
    func owned(_ query: Int) throws(ProtocolError) -> QueryID {
        guard query > 0, queries[QueryID(query)] != nil else {
            throw ProtocolError(.init(EngineError.Code.unknownQuery), "no query \(query) on this connection", details: ["query": .integer(Int64(query))])
        }
        return QueryID(query)
    }

    /// A query this connection holds whose containers the peer may still read: after a reload
    /// took the right away, its results are `container.forbidden` (stop and release still work).
    func readable(_ query: Int) throws(ProtocolError) -> QueryID {
        let id = try owned(query)
        if let container = context.registry.revoked(queryContainers[id] ?? [], for: peer) {
            throw ProtocolError(.containerForbidden, "uid \(peer.uid) may no longer read container '\(container)'",
                                details: ["container": .string(container.rawValue), "query": .integer(Int64(query))])
        }
        return id
    }

    /// Releases every query, lock and watch: the connection is gone.
    func releaseAll() async {
        context.documentLocks.releaseAll(connection: connection)
        documentWatches.removeAll()
        await releaseKeyValue()
        await releaseStores()
        for id in queries.keys {
            await context.engine.release(id)
            forget(id)
        }
    }

    /// Drops a released query and gives its slot and items back to the user's budget.
    func forget(_ id: QueryID) {
        guard queries.removeValue(forKey: id) != nil else { return }
        queryContainers[id] = nil
        encoders[id] = nil
        context.budget.release(for: peer.uid, items: heldItems.removeValue(forKey: id) ?? 0)
    }

    var liveQueryCount: Int { queries.values.filter(\.live).count }

    static func info(_ container: ResolvedContainer, items: Int) -> ContainerInfo {
        ContainerInfo(id: container.descriptor.id.rawValue, path: container.descriptor.root, available: container.available,
                      items: items, ownerUID: container.ownerUID, groupGID: container.groupGID,
                      packageTypes: container.descriptor.packageTypes)
    }

    /// Creates `Documents/` on demand, owned by the container's owner when we are root — through
    /// descriptors, so a link the owner put in place of the container or of `Documents` is refused,
    /// never followed (``ContainerDirectory``).
    func ensureDocuments(_ container: ResolvedContainer) throws(ProtocolError) -> String {
        let root = container.descriptor.root
        let result = ContainerDirectory.open(root).flatMap { fd in
            defer { close(fd) }
            let root = geteuid() == 0
            return ContainerDirectory.ensure("Documents", in: fd, parentPath: container.descriptor.root, mode: 0o755,
                                             owner: root ? container.ownerUID : nil, group: root ? container.groupGID : nil)
        }
        switch result {
        case .success(let created):
            if created { context.logger.info("created Documents", metadata: ["container": "\(container.descriptor.id)"]) }
            return root + "/Documents"
        case .failure(let problem):
            throw ProtocolError(.containerUnavailable, problem.message,
                                details: ["container": .string(container.descriptor.id.rawValue)])
        }
    }
}
