import Synchronization
import UbiquityIndex
import UbiquityProtocol

/// Writes the events of every query of one connection, read from the engine as one group
/// (``QueryEngine/nextEvents(_:)``): each wake-up brings every query's due event, and their lines
/// go out in one write. A change that reaches ten queries of a connection costs one wake-up, one
/// write and one call back to the engine, where a task per query paid each of those ten times.
///
/// Backpressure is unchanged: until the write returns (the socket took it) the reader does not
/// come back, so each query keeps at most the one event in hand and the engine coalesces the rest.
///
/// Before each event the peer's right to its query's containers is checked again: after a reload
/// that took it away, the subscriber gets one `container.forbidden`, the query stops, and no item
/// of it follows.
final class ConnectionForwarder: Sendable {
    /// How one query's events are written.
    struct Route: Sendable {
        var live: Bool
        var access: QueryAccess
        var encoder: ResultEncoder<ResultItem>
    }

    private struct Routes {
        var byQuery: [QueryID: Route] = [:]
        /// The forwarder stopped (the group closed or the peer is gone): queries added now are not counted.
        var ended = false
    }

    private let engine: QueryEngine
    private let group: QueryGroupID
    private let writer: LineWriter
    private let routes = Mutex(Routes())
    /// Counts live queries in and out of the server's status (positive: started).
    private let liveQueriesChanged: @Sendable (Int) -> Void

    init(engine: QueryEngine, writer: LineWriter, liveQueriesChanged: @escaping @Sendable (Int) -> Void) async {
        self.engine = engine
        self.writer = writer
        self.liveQueriesChanged = liveQueriesChanged
        group = await engine.makeGroup()
    }

    /// Forwards a started query's events from its first (`gatheringStarted`) on.
    func add(_ id: QueryID, route: Route) async {
        let counted = routes.withLock { routes in
            routes.byQuery[id] = route
            return route.live && !routes.ended
        }
        if counted { liveQueriesChanged(1) }
        await engine.join(id, group: group)
    }

    /// Ends ``run()``: the connection's queries are released.
    func close() async {
        await engine.closeGroup(group)
    }

    /// Writes events until the group closes or the connection cannot be written.
    func run() async {
        defer {
            let live = routes.withLock { routes in
                routes.ended = true
                return routes.byQuery.values.filter(\.live).count
            }
            if live > 0 { liveQueriesChanged(-live) }
        }
        while let events = await engine.nextEvents(group) {
            // Written together, a whole result set a piece at a time (``LineWriter``).
            var lines: [OutgoingLine] = []
            for next in events {
                guard let route = routes.withLock({ $0.byQuery[next.query] }) else { continue }
                let query = Int(next.query)
                guard let event = next.event else {
                    remove(next.query)
                    if !route.live {
                        lines.append(.bytes(JSONLine.encodeLine(ServerEvent.stopped(query: query,
                            reason: "gathering finished and the query is not live").json)))
                    }
                    continue
                }
                if let container = route.access.revoked() {
                    remove(next.query)
                    try? await engine.stop(next.query)
                    lines.append(.bytes(JSONLine.encodeLine(ServerEvent.containerForbidden(query: query, container: container.rawValue,
                        reason: "uid \(route.access.peer.uid) may no longer read this container (the configuration changed); the query is stopped").json)))
                    continue
                }
                guard let line = WireTranslation.line(event, query: query, encoder: route.encoder) else { continue }
                lines.append(line)
            }
            guard !lines.isEmpty else { continue }
            // No `malloc_trim` after big lines: their buffers (and every block of 128 KiB or more,
            // see `Daemon`'s mmap threshold) go back to the system when freed; what glibc keeps
            // of the small ones is about 5% of the daemon's private memory, bounded (issue 14).
            do { try await writer.write(lines: lines) } catch { return }     // the peer is gone; the session releases its queries
        }
    }

    /// The query's events are no longer written (it ended, or its peer may no longer read it).
    private func remove(_ id: QueryID) {
        let live = routes.withLock { $0.byQuery.removeValue(forKey: id)?.live ?? false }
        if live { liveQueriesChanged(-1) }
    }
}
