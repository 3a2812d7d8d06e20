public import UbiquityPredicate

/// The in-process engine: applies change batches to the index and keeps every live query's
/// subscriber told. The server calls it; it owns the index.
///
/// Events are pulled: a subscriber that does not read accumulates coalesced changes, never
/// an unbounded queue, and never slows anyone else (guarantee 7 in docs/live-queries.md).
public actor QueryEngine {
    private let index = MetadataIndex()
    private let source: any ChangeSource
    private let clock = ContinuousClock()
    private let limits: EngineLimits
    private var sessions: [QueryID: Session] = [:]
    private var nextQueryID: QueryID = 1
    /// The sequence number of the last batch applied, and who waits for a later one.
    private var appliedSequence: UInt64 = 0
    private var sequenceWaiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    /// Subtrees unwatched right now: an entry leaves when its subtree is watched again, is gone,
    /// or its container goes away, so the list never outgrows the watcher's own.
    public private(set) var unwatched: [UnwatchedSubtree] = []

    final class Session {
        let id: QueryID
        let query: LiveQuery
        var delivery: DeliveryStateMachine<ContinuousClock.Instant>
        /// Events that go out before any pending update (gathering, notices).
        var queue: [QueryEvent] = []
        var waiter: CheckedContinuation<QueryEvent?, Never>?
        var timer: Task<Void, Never>?
        var stopped = false

        init(id: QueryID, query: LiveQuery, delivery: DeliveryStateMachine<ContinuousClock.Instant>) {
            self.id = id
            self.query = query
            self.delivery = delivery
        }
    }

    public init(containers: [ContainerDescriptor], source: any ChangeSource, limits: EngineLimits = EngineLimits()) {
        self.source = source
        self.limits = limits
        for container in containers { index.addContainer(container) }
    }

    /// Injects the `user.xdg.tags` reader (the watcher's), since the index does no I/O.
    public func setTagsReader(_ reader: @escaping @Sendable (String) -> [String]) {
        index.tagsReader = reader
    }

    /// Registers a container added while running (a configuration reload); its items arrive
    /// from the source like any others.
    public func addContainer(_ descriptor: ContainerDescriptor) {
        index.addContainer(descriptor)
    }

    /// Tells the subscribers of a container something the source did not (e.g. that the
    /// container was removed from the configuration: `.containerUnavailable`).
    public func announce(_ notice: ChangeNotice) {
        broadcast(notice, realChanges: 0)
    }

    /// Items per container right now.
    public func itemCounts() -> [ContainerID: Int] { index.itemCountsByContainer() }

    // MARK: - Running

    /// Consumes the source until it ends or the task is cancelled.
    public func run() async {
        for await batch in source.batches() {
            apply(batch)
        }
    }

    /// Applies one batch (also usable directly, e.g. by tests and benchmarks).
    public func apply(_ batch: ChangeBatch) {
        // With no live query yet (the first crawl), skip building the change set.
        let changes = index.apply(batch.changes, record: sessions.values.contains { !$0.stopped })
        appliedSequence = max(appliedSequence, batch.sequence)
        if !changes.isEmpty {
            for session in sessions.values where !session.stopped && session.query.specification.live {
                let delta = session.query.apply(changes)
                if !delta.isEmpty {
                    session.delivery.add(delta)
                    schedule(session)
                }
            }
        }
        for notice in batch.notices { broadcast(notice, realChanges: changes.count) }
        if !sequenceWaiters.isEmpty {
            let ready = sequenceWaiters.filter { $0.sequence <= appliedSequence }
            sequenceWaiters.removeAll { $0.sequence <= appliedSequence }
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    private func broadcast(_ notice: ChangeNotice, realChanges: Int) {
        trackUnwatched(notice)
        guard notice.reachesSubscribers else { return }
        let event: QueryEvent
        let container = notice.container
        switch notice {
        case .resync(let c, _):
            event = .resync(container: c, reason: notice.reason, changes: realChanges)
        case .subtreeUnwatched(let subtree):
            event = .unwatched(container: subtree.container, path: subtree.path.joined(separator: "/"), reason: notice.reason)
        case .containerUnavailable(let c):
            event = .containerUnavailable(c)
        case .containerAvailable(let c):
            event = .containerAvailable(c)
        case .subtreeWatched, .subtreeGone, .skipped:
            return
        }
        for session in sessions.values where !session.stopped {
            let wanted = session.query.specification.containers
            guard wanted.isEmpty || wanted.contains(container) else { continue }
            if session.queue.count >= limits.pendingNoticesPerQuery { session.queue.removeFirst() }
            session.queue.append(event)
            wake(session)
        }
    }

    private func trackUnwatched(_ notice: ChangeNotice) {
        switch notice {
        case .subtreeUnwatched(let subtree):
            unwatched.removeAll { $0.container == subtree.container && $0.path == subtree.path }
            unwatched.append(subtree)
        case .subtreeWatched(let c, let path), .subtreeGone(let c, let path):
            unwatched.removeAll { $0.container == c && $0.path.starts(with: path) }
        case .containerUnavailable(let c):
            unwatched.removeAll { $0.container == c }
        case .containerAvailable, .resync, .skipped:
            break
        }
    }

    /// Returns once every change that happened before the call is in the index.
    public func synchronize() async throws {
        let target = try await source.sync()
        if appliedSequence >= target { return }
        await withCheckedContinuation { continuation in
            if appliedSequence >= target {
                continuation.resume()
            } else {
                sequenceWaiters.append((target, continuation))
            }
        }
    }

    // MARK: - Queries

    /// Starts a query: synchronises with the source (complete gathering, guarantee 1 in docs/live-queries.md), gathers,
    /// and returns its id. Read its events with ``events(_:)``.
    public func start(_ specification: QuerySpecification) async throws -> QueryID {
        for container in specification.containers where index.containerIndex(container) == nil {
            throw EngineError.unknownContainer(container)
        }
        try await synchronize()
        let id = nextQueryID
        nextQueryID += 1
        let query = LiveQuery(specification, index: index, context: EvaluationContext())
        let session = Session(id: id, query: query, delivery: DeliveryStateMachine(
            interval: specification.batchingInterval, limit: limits.pendingItemsPerQuery, gatheredAt: clock.now))
        session.queue.append(.gatheringStarted)
        let results = query.gather()
        session.queue.append(.gatheringProgress(count: results.count))
        session.queue.append(.gatheringFinished(results))
        if !specification.live { session.stopped = true }
        sessions[id] = session
        return id
    }

    /// The events of a query, as an async sequence; it ends when the query stops.
    public nonisolated func events(_ id: QueryID) -> QueryEvents { QueryEvents(engine: self, id: id) }

    /// The current results of a query (also after it stopped, until it is released).
    public func results(_ id: QueryID) throws(EngineError) -> [ResultItem] {
        guard let session = sessions[id] else { throw .unknownQuery(id) }
        return session.query.results
    }

    public func disableUpdates(_ id: QueryID) throws(EngineError) {
        guard let session = sessions[id] else { throw .unknownQuery(id) }
        session.delivery.disable()
        session.timer?.cancel()
        session.timer = nil
    }

    /// Releases everything held back since `disableUpdates` as one update.
    public func enableUpdates(_ id: QueryID) throws(EngineError) {
        guard let session = sessions[id] else { throw .unknownQuery(id) }
        session.delivery.enable()
        if let output = session.delivery.take(now: clock.now, force: true) {
            session.queue.append(event(for: output, session))
            wake(session)
        }
    }

    /// Stops a query: no more events; its last results stay readable until ``release(_:)``.
    public func stop(_ id: QueryID) throws(EngineError) {
        guard let session = sessions[id] else { throw .unknownQuery(id) }
        session.stopped = true
        session.timer?.cancel()
        session.timer = nil
        session.waiter?.resume(returning: session.queue.isEmpty ? nil : session.queue.removeFirst())
        session.waiter = nil
    }

    public func release(_ id: QueryID) {
        if let session = sessions.removeValue(forKey: id) {
            session.timer?.cancel()
            session.waiter?.resume(returning: nil)
        }
    }

    /// Results of a one-shot query against the index as it is now (no barrier, no session).
    public func snapshot(_ specification: QuerySpecification) -> [ResultItem] {
        LiveQuery(specification, index: index, context: EvaluationContext()).gather()
    }

    /// How many items match, without building results: the cost of the lookup itself.
    public func count(_ predicate: MetadataPredicate) -> Int {
        let query = LiveQuery(QuerySpecification(predicate: predicate), index: index, context: EvaluationContext())
        return query.matchingIDs().count
    }

    public var queryCount: Int { sessions.values.filter { !$0.stopped }.count }
    public var itemCount: Int { index.itemCount }

    // MARK: - Delivery

    private func event(for output: DeliveryStateMachine<ContinuousClock.Instant>.Output, _ session: Session) -> QueryEvent {
        switch output {
        case .update(let delta): return .update(delta)
        case .reset: return .reset(session.query.results)
        }
    }

    /// Arranges for pending output to go out when its batching window opens.
    private func schedule(_ session: Session) {
        guard session.waiter != nil, session.timer == nil,
              let due = session.delivery.deadline(now: clock.now) else { return }
        if due <= clock.now {
            wake(session)
            return
        }
        let id = session.id
        session.timer = Task { [weak self, clock] in
            try? await clock.sleep(until: due)
            if Task.isCancelled { return }
            await self?.timerFired(id)
        }
    }

    private func timerFired(_ id: QueryID) {
        guard let session = sessions[id] else { return }
        session.timer = nil
        wake(session)
    }

    /// Hands the next event to a waiting subscriber, if one is waiting and something is due.
    private func wake(_ session: Session) {
        guard let waiter = session.waiter, let event = nextDueEvent(session) else {
            if session.waiter != nil { schedule(session) }
            return
        }
        session.waiter = nil
        waiter.resume(returning: event)
    }

    private func nextDueEvent(_ session: Session) -> QueryEvent? {
        if !session.queue.isEmpty { return session.queue.removeFirst() }
        if session.stopped { return nil }
        if let output = session.delivery.take(now: clock.now) { return event(for: output, session) }
        return nil
    }

    /// The next event of a query; nil when it has stopped and nothing is left.
    func nextEvent(_ id: QueryID) async -> QueryEvent? {
        guard let session = sessions[id] else { return nil }
        if let event = nextDueEvent(session) { return event }
        if session.stopped { return nil }
        if session.waiter != nil { return nil }     // one reader per query
        return await withCheckedContinuation { continuation in
            session.waiter = continuation
            schedule(session)
        }
    }

    /// A reader went away (its task was cancelled): stop waiting for it.
    func cancelWait(_ id: QueryID) {
        guard let session = sessions[id] else { return }
        session.waiter?.resume(returning: nil)
        session.waiter = nil
        session.timer?.cancel()
        session.timer = nil
    }
}
