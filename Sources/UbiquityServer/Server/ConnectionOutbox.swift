import Synchronization
import UbiquityIndex
import UbiquityProtocol
import UbiquityJSON
import UbiquityStore

/// The one way out for every event a connection receives — its queries' events, `kv.changed`,
/// `document.lockChanged`, `store.changed` — written by one task per connection (``run(writer:)``).
///
/// Nothing is pushed at the peer. Subsystems post into a coalesced state
/// (``ConnectionOutboxState``: the latest lock state per watch, per key-value subscription the
/// union of the changed keys with the latest reason, or "any key" past the store's key quota)
/// and the engine keeps its own coalesced state per query; the writer takes what is owed only
/// when the previous write returned, i.e. when the socket took it (``LineWriter``: the 1 MiB
/// pending-write watermark). A peer that does not read therefore stops the pulling, and what
/// waits for it is bounded by its watches, subscriptions, key quotas and queries, never by how
/// many changes happened. A change that reaches ten queries, a watch and a subscription of a
/// connection costs one wake-up and one write.
///
/// Before each query event the peer's right to the query's containers is checked again: after a
/// reload that took it away, the subscriber gets one `container.forbidden`, the query stops, and
/// no item of it follows.
final class ConnectionOutbox: Sendable {
    /// How one query's events are written.
    struct Route: Sendable {
        var live: Bool
        var access: QueryAccess
        var encoder: ResultEncoder<ResultItem>
    }

    private struct Queries {
        /// The engine group the queries are read through, made with the first query.
        var group: QueryGroupID?
        var routes: [QueryID: Route] = [:]
        /// The writer stopped (the outbox finished or the peer is gone): queries added now are not counted.
        var ended = false
    }

    private let engine: QueryEngine
    private let state = Mutex(ConnectionOutboxState<CheckedContinuation<Void, Never>>())
    private let queries = Mutex(Queries())
    /// The connection's live fetches (`store.watch`) and the rows each subscriber holds.
    private let liveFetches = Mutex<[Int: LiveFetch]>([:])
    /// Counts live queries in and out of the server's status (positive: started).
    private let liveQueriesChanged: @Sendable (Int) -> Void

    init(engine: QueryEngine, liveQueriesChanged: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.engine = engine
        self.liveQueriesChanged = liveQueriesChanged
    }

    // MARK: Posting (any task; never waits)

    /// `watch`'s document is now (un)locked (``DocumentLocks``).
    func post(watch: Int, path: String, locked: Bool, yours: Bool) {
        state.withLock { $0.lockChanged(watch: watch, path: path, locked: locked, yours: yours) }?.resume()
    }

    /// Keys of a subscribed key-value store changed (``ContainerKeyValueStore``). Past
    /// `keyLimit` pending keys — the store's key quota — the subscription owes "any key may have
    /// changed" instead (``ConnectionOutboxState/keyValueChanged(_:limit:)``).
    func post(_ change: KeyValueChange, keyLimit: Int) {
        state.withLock { $0.keyValueChanged(change, limit: keyLimit) }?.resume()
    }

    /// Rows of a store this connection opened changed (``ContainerStore``). Past `rowLimit`
    /// pending rows the subscription owes "any row may have changed" instead.
    func post(storeHandle handle: Int, container: String, store: String, result: ImportResult, from source: DeviceID, clock: String, rowLimit: Int) {
        state.withLock { $0.storeChanged(handle: handle, container: container, store: store, result: result, from: source, clock: clock, limit: rowLimit) }?
            .resume()
    }

    /// Any row of a store this connection opened may have changed (it was reopened with a newer schema).
    func postEverything(storeHandle handle: Int, container: String, store: String, clock: String) {
        state.withLock { $0.storeEverything(handle: handle, container: container, store: store, clock: clock, limit: 1) }?.resume()
    }

    func forget(storeHandle handle: Int) { state.withLock { $0.forget(storeHandle: handle) } }

    /// Writes live fetch `watch`'s rows (`store.gatheringFinished`) once its store owes them, then
    /// the difference each time the store changes (``ContainerStore/watch(_:outbox:)``).
    func add(liveFetch watch: Int, _ fetch: LiveFetch) { liveFetches.withLock { $0[watch] = fetch } }

    /// A live fetch ended: nothing more of it is written.
    func remove(liveFetch watch: Int) {
        liveFetches.withLock { $0[watch] = nil }
        state.withLock { $0.forget(liveFetch: watch) }
    }

    /// Live fetch `watch`'s store changed: it is fetched again when the writer next writes.
    func liveFetchOwed(_ watch: Int) { state.withLock { $0.liveFetchOwed(watch) }?.resume() }

    func forget(watch: Int) { state.withLock { $0.forget(watch: watch) } }

    func forget(store: Int) { state.withLock { $0.forget(store: store) } }

    /// Writes a started query's events from its first (`gatheringStarted`) on.
    func add(_ id: QueryID, route: Route) async {
        let (counted, existing) = queries.withLock { queries in
            queries.routes[id] = route
            return (route.live && !queries.ended, queries.group)
        }
        if counted { liveQueriesChanged(1) }
        let group: QueryGroupID
        if let existing { group = existing } else {
            // Requests are answered one at a time, so no other `add` races this one.
            group = await engine.makeGroup { [weak self] in self?.queriesReady() }
            queries.withLock { $0.group = group }
        }
        await engine.join(id, group: group)
    }

    /// Ends ``run(writer:)``: the connection's queries are read by no one (release them), and
    /// posts are ignored from now on.
    func finish() async {
        if let group = queries.withLock({ $0.group }) { await engine.closeGroup(group) }
        state.withLock { $0.finish() }?.resume()
    }

    /// How many lock, key-value and store entries wait (tests): bounded by the watches, key quotas and row limits.
    var pendingEntries: Int { state.withLock { $0.pendingEntries } }

    // MARK: Writing

    /// Writes what is owed, one write per wake-up, until ``finish()`` or until the connection
    /// cannot be written.
    func run(writer: LineWriter) async {
        defer {
            _ = state.withLock { $0.finish() }
            let live = queries.withLock { queries in
                queries.ended = true
                return queries.routes.values.filter(\.live).count
            }
            if live > 0 { liveQueriesChanged(-live) }
        }
        while let delivery = await next() {
            // Written together, a whole result set a piece at a time (``LineWriter``).
            var unverified = 0
            var lines: [OutgoingLine] = delivery.pullQueries ? await queryLines(unverified: &unverified) : []
            let notifying = !lines.isEmpty
            for event in delivery.documents { lines.append(.bytes(JSONLine.encodeLine(event.json))) }
            for change in delivery.keyValue { lines.append(.bytes(JSONLine.encodeLine(change.json))) }
            for change in delivery.stores { lines.append(.bytes(JSONLine.encodeLine(change.json))) }
            for watch in delivery.liveFetches {
                if let event = await liveFetchEvent(watch) { lines.append(.bytes(JSONLine.encodeLine(event))) }
            }
            guard !lines.isEmpty else { continue }
            // No `malloc_trim` after big lines: their buffers (and every block of 128 KiB or more,
            // see `Daemon`'s mmap threshold) go back to the system when freed; what glibc keeps
            // of the small ones is about 5% of the daemon's private memory, bounded (issue 14).
            do { try await writer.write(lines: lines, notifying: notifying) } catch { return }     // the peer is gone; the session releases the rest
            // Answers from the saved index are out: the crawl they held goes on (a write that
            // failed leaves it to their bound).
            if unverified > 0 { engine.unverifiedAnswersWritten(unverified) }
        }
    }

    /// What is owed, once there is something; nil once finished.
    private func next() async -> ConnectionOutboxState<CheckedContinuation<Void, Never>>.Delivery? {
        while true {
            switch state.withLock({ $0.take() }) {
            case .deliver(let delivery): return delivery
            case .finished: return nil
            case .idle:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    if !state.withLock({ $0.wait(continuation) }) { continuation.resume() }
                }
            }
        }
    }

    /// Live fetch `watch`'s next event: its rows the first time, then what changed since the rows
    /// its subscriber holds (nil when nothing did, or it ended meanwhile). A fetch that fails now
    /// (its answer grew past the limit, or a reload took the peer's right to read the container
    /// away) ends it with `store.watchStopped`.
    private func liveFetchEvent(_ watch: Int) async -> JSONValue? {
        guard let live = liveFetches.withLock({ $0[watch] }) else { return nil }
        let event: StoreWatchEvent?
        do {
            if let container = live.access.revoked() {
                throw ProtocolError(.containerForbidden, "uid \(live.access.peer.uid) may no longer read container '\(container)'",
                                    details: ["container": .string(container.rawValue)])
            }
            event = try await live.store.liveFetchEvent(watch)
        } catch {
            remove(liveFetch: watch)
            await live.store.unwatch(watch)
            let refusal = (error as? any ClientFacingError).map { ProtocolError(rendering: $0) } ?? ProtocolError(.internal, Session.internalMessage)
            return .object(["event": .string("store.watchStopped"), "watch": .integer(Int64(watch)), "code": .string(refusal.code.rawValue),
                            "reason": .string(refusal.message)])
        }
        // Ended while its event was made: nothing more of it is written.
        guard liveFetches.withLock({ $0[watch] != nil }) else { return nil }
        return event?.json
    }

    private func queriesReady() {
        state.withLock { $0.queriesReady() }?.resume()
    }

    /// How many pulls of the queries' events one write may gather. The engine hands out one event
    /// per query per pull (the next is asked for at the next pull), so a query's first events —
    /// `gatheringStarted`, `gatheringProgress`, its answer — take three: pulled one after the
    /// other, they leave in one write, where each pull's own write woke the event loop and the
    /// peer once more (a 10k-item one-shot answer: three writes instead of five). Bounded: a write
    /// holds at most this many events of a query, and none after a whole result set.
    static let pullsPerWrite = 3

    /// The lines of every query event due now, over up to ``pullsPerWrite`` pulls. A pull that
    /// brought events and is the last of the write is followed by another once written (the
    /// queries handed out are asked for their next event only then, as with
    /// ``QueryEngine/nextEvents(_:)``); one that brought none leaves the engine to say when.
    /// - Parameter unverified: counts the answers marked unverified among them.
    private func queryLines(unverified: inout Int) async -> [OutgoingLine] {
        guard let group = queries.withLock({ $0.group }) else { return [] }
        var lines: [OutgoingLine] = []
        for _ in 0..<Self.pullsPerWrite {
            guard let events = await engine.takeEvents(group), !events.isEmpty else { return lines }
            unverified += events.count { if case .gatheringFinished(_, _, _, false)? = $0.event { true } else { false } }
            // A whole result set is written before anything more is pulled: the next pull could
            // bring another (a reset), and two would be held at once.
            if await append(events, to: &lines) { break }
        }
        queriesReady()
        return lines
    }

    /// Appends the lines of `events`; whether one of them is a whole result set.
    private func append(_ events: [QueryGroupEvent], to lines: inout [OutgoingLine]) async -> Bool {
        var resultSet = false
        for next in events {
            guard let route = queries.withLock({ $0.routes[next.query] }) else { continue }
            let query = Int(next.query)
            guard let event = next.event else {
                remove(next.query)
                if !route.live { lines.append(WireTranslation.notLive(query: query)) }
                continue
            }
            if let container = route.access.revoked() {
                remove(next.query)
                try? await engine.stop(next.query)
                lines.append(WireTranslation.forbidden(query: query, container: container, uid: route.access.peer.uid))
                continue
            }
            guard let line = WireTranslation.line(event, query: query, encoder: route.encoder) else { continue }
            if case .results = line { resultSet = true }
            lines.append(line)
        }
        return resultSet
    }

    /// The query's events are no longer written (it ended, or its peer may no longer read it).
    private func remove(_ id: QueryID) {
        let live = queries.withLock { $0.routes.removeValue(forKey: id)?.live ?? false }
        if live { liveQueriesChanged(-1) }
    }
}
