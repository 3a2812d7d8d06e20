import Synchronization
public import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol

/// A live metadata query against `ubiquityd`, shaped like `NSMetadataQuery`.
///
/// Configure it, ``start()`` it, and iterate the notifications. ``results`` always mirrors the
/// daemon's result set: the gathered results, with every update applied in order, before the
/// notification that reports the change is delivered.
///
/// ```swift
/// let connection = try await UbiquityConnection.connect()
/// let query = MetadataQuery(connection: connection, predicateFormat: "kMDItemFSName LIKE %@",
///                           arguments: ["Item_*"])
/// query.searchScopes = .documents
/// query.sortDescriptors = [.init(key: "kMDItemFSContentChangeDate", ascending: false)]
/// query.attributes = ["kMDItemFSName", "kMDItemFSSize"]
/// for try await notification in try await query.start() {
///     switch notification {
///     case .didFinishGathering: print("\(query.resultCount) items")
///     case .didUpdate(let added, let changed, let removed): print(added.count, changed.count, removed.count)
///     default: break
///     }
/// }
/// ```
///
/// Event order (one query):
/// ```
/// start() ─▶ didStartGathering ─▶ gatheringProgress* ─▶ didFinishGathering ─▶ didUpdate* ─▶ (stop)
///                                                         didReset / resync / container… may come between updates
/// ```
///
/// Ordering of ``results``: gathered and reset results come sorted from the daemon; updates are
/// merged locally with the same comparison the daemon uses (`MetadataSortDescriptor.order`, each
/// sort key in turn, then the path), so no extra round trip is needed. To make that possible
/// the sort attributes are always requested along with ``attributes``.
///
/// The stream ends normally after ``stop()`` (or when a non-live query finishes), and with a
/// ``UbiquityKitError`` when the connection is lost or the daemon shuts down. Cancelling the
/// task that iterates it stops the query.
public final class MetadataQuery: Sendable {
    /// Which part of each container to search.
    public enum SearchScope: String, Sendable, Hashable, CaseIterable {
        /// `Documents/` only (`NSMetadataQueryUbiquitousDocumentsScope`).
        case documents
        /// Everything outside `Documents/` (`NSMetadataQueryUbiquitousDataScope`).
        case data
        /// Both.
        case all
    }

    /// One sort key, like `NSSortDescriptor(key:ascending:)`; any attribute spelling.
    public struct SortDescriptor: Sendable, Hashable {
        public var key: String
        public var ascending: Bool
        public init(key: String, ascending: Bool = true) {
            self.key = key
            self.ascending = ascending
        }
        /// `KEY` or `KEY:desc`, the wire form.
        public var wireForm: String { ascending ? key : key + ":desc" }
    }

    /// What happened to the query, in the order the daemon reported it.
    public enum Notification: Sendable, Hashable {
        /// `NSMetadataQueryDidStartGathering`.
        case didStartGathering
        /// `NSMetadataQueryGatheringProgress`: `count` items found so far.
        case gatheringProgress(count: Int)
        /// `NSMetadataQueryDidFinishGathering` with the full, sorted result set as gathered
        /// (``MetadataQuery/results`` may already be further along when you read it).
        case didFinishGathering(results: [MetadataItem])
        /// `NSMetadataQueryDidUpdate`, already applied to ``MetadataQuery/results``. A `changed`
        /// item with an `oldPath` was renamed from there.
        case didUpdate(added: [MetadataItem], changed: [MetadataItem], removed: [MetadataItem])
        /// This client fell behind; the daemon replaced the whole result set with `results`
        /// (already applied).
        case didReset(results: [MetadataItem])
        /// Events were lost and a container rescanned; `changes` real changes follow as updates.
        case resync(container: String, reason: String, changes: Int)
        /// A subtree cannot be watched; the daemon keeps it correct by periodic rescans.
        case unwatched(container: String, path: String, reason: String)
        /// A container directory went missing or unreadable.
        case containerUnavailable(String)
        /// The container is back.
        case containerAvailable(String)
        /// This user may no longer read the container (its owner or group changed): the daemon
        /// stopped the query. The last notification; ``MetadataQuery/results`` stay as they were.
        case containerForbidden(String)
        /// In place of ``didFinishGathering(results:)`` for a query started with
        /// ``start(resumingFrom:)``: the daemon proved what changed since the resume point, and
        /// ``MetadataQuery/results`` are the resume point's results with these applied.
        case didResume(added: [MetadataItem], changed: [MetadataItem], removed: [MetadataItem])
        /// The daemon could not prove what changed since the resume point (it restarted without its
        /// saved index, the resume point is older than its history, ...): `code` (`clock.otherEpoch`,
        /// `clock.pastRetention`, `clock.ahead`) and why. ``didFinishGathering(results:)`` follows
        /// with the full result set.
        case couldNotResume(code: String, reason: String)
        /// The daemon answered from its saved index, before checking it against the file system
        /// (``MetadataQuery/freshness`` `.saved`, after a restart): ``didFinishGathering(results:)``
        /// (or ``didResume(added:changed:removed:)``) follows with that answer; what the check finds
        /// arrives as updates, then ``didVerify``.
        case unverified
        /// The results are checked: every difference the check found was in the updates before.
        case didVerify
    }

    /// How fresh the first answer must be.
    public enum Freshness: Sendable, Hashable {
        /// Every change made before the query started (the default): after a daemon restart the
        /// answer waits for the daemon's check of its saved index.
        case exact
        /// After a daemon restart, at once from its saved index, then corrected by updates and
        /// confirmed by ``Notification/didVerify``: for a view that shows the last known list at once.
        case saved
    }

    /// The results and the daemon's clock they are as of: what ``start(resumingFrom:)`` needs to
    /// pick up where an earlier query (on a lost connection, in an earlier run) left off.
    public struct ResumePoint: Sendable, Hashable {
        /// The daemon's clock token (opaque; see docs/protocol.md).
        public let clock: String
        public let results: [MetadataItem]

        public init(clock: String, results: [MetadataItem]) {
            self.clock = clock
            self.results = results
        }
    }

    fileprivate enum Phase: Sendable { case idle, starting, gathering, live, stopped }

    fileprivate struct Configuration: Sendable {
        var predicateFormat: String
        var arguments: [JSONValue]
        var variables: [String: JSONValue] = [:]
        var searchScopes: SearchScope = .all
        var containers: [String] = []
        var sortDescriptors: [SortDescriptor] = []
        var attributes: [String] = []
        var notificationBatchingInterval: Double?
        var isLive = true
        var reportsChangesOfRequestedAttributesOnly = false
        var freshness = Freshness.exact
    }

    /// An item with its sort values, computed once when it arrives (while results are merged).
    fileprivate struct Entry: Sendable {
        var item: MetadataItem
        var key: [Value?]
    }

    fileprivate struct State: Sendable {
        var configuration: Configuration
        var phase = Phase.idle
        var queryID: Int?
        var released = false
        var sort: [MetadataSortDescriptor] = []
        /// The results in the daemon's order, and beside them each one's sort values: two arrays,
        /// not one of entries, so that ``results`` is this array itself rather than a copy of
        /// every item (copying and freeing 100k items took a fifth of `ubiq query`'s time).
        var items: [MetadataItem] = []
        var keys: [[Value?]] = []
        /// Notifications not yet taken by the reader (bounded, see ``NotificationBuffer``).
        var buffer = NotificationBuffer(limit: MetadataQuery.maxWaitingNotifications)
        /// The reader, when it waits for the next notification.
        var waiter: CheckedContinuation<Notification?, any Error>?
        /// Set when the stream ends: nil error for a normal end, after the buffer is drained.
        var end: (any Error)??
        /// The daemon's clock as of ``items``.
        var clock: String?
        /// The daemon's clock as of the notification the reader took last.
        var takenClock: String?
    }

    /// Notifications that may wait for a reader before waiting updates are folded into one
    /// ``Notification/didReset(results:)`` (nothing is lost: ``results`` is always current).
    public static let maxWaitingNotifications = 256

    /// The connection the query runs on; one connection may run many queries.
    public let connection: UbiquityConnection
    private let state: Mutex<State>

    /// Creates a query; nothing is sent until ``start()``.
    ///
    /// - Parameters:
    ///   - connection: An open connection.
    ///   - predicateFormat: NSPredicate / Spotlight text, e.g. `kMDItemFSName LIKE 'Item_*'`.
    ///   - arguments: Values for `%@`, `%K`, `%d`, `%f`, in order.
    public init(connection: UbiquityConnection, predicateFormat: String, arguments: [JSONValue] = []) {
        self.connection = connection
        self.state = Mutex(State(configuration: Configuration(predicateFormat: predicateFormat, arguments: arguments)))
    }

    // MARK: Configuration (read when start() is called)

    private func get<T: Sendable>(_ keyPath: KeyPath<Configuration, T>) -> T {
        state.withLock { $0.configuration[keyPath: keyPath] }
    }

    private func set<T: Sendable>(_ keyPath: WritableKeyPath<Configuration, T>, _ value: T) {
        state.withLock { $0.configuration[keyPath: keyPath] = value }
    }

    /// The predicate text. Changing it after ``start()`` has no effect on the running query.
    public var predicateFormat: String {
        get { get(\.predicateFormat) }
        set { set(\.predicateFormat, newValue) }
    }
    /// Values for `%@`, `%K`, `%d`, `%f`, in order.
    public var arguments: [JSONValue] {
        get { get(\.arguments) }
        set { set(\.arguments, newValue) }
    }
    /// Values for `$NAME` in the predicate.
    public var variables: [String: JSONValue] {
        get { get(\.variables) }
        set { set(\.variables, newValue) }
    }
    /// Documents, data or both (default: ``SearchScope/all``).
    public var searchScopes: SearchScope {
        get { get(\.searchScopes) }
        set { set(\.searchScopes, newValue) }
    }
    /// Container ids to search; empty (the default) means every container this user may read.
    public var containers: [String] {
        get { get(\.containers) }
        set { set(\.containers, newValue) }
    }
    /// Result order; ties are broken by path. Empty: by path.
    public var sortDescriptors: [SortDescriptor] {
        get { get(\.sortDescriptors) }
        set { set(\.sortDescriptors, newValue) }
    }
    /// Attributes each result carries, any spelling; empty means `kMDItemFSName`.
    public var attributes: [String] {
        get { get(\.attributes) }
        set { set(\.attributes, newValue) }
    }
    /// Seconds between updates; nil means the daemon's default (50 ms), 0 as soon as possible.
    public var notificationBatchingInterval: Double? {
        get { get(\.notificationBatchingInterval) }
        set { set(\.notificationBatchingInterval, newValue) }
    }
    /// False: gather once, then the query stops by itself and the stream ends (like `mdfind`
    /// without `-live`). Default true.
    public var isLive: Bool {
        get { get(\.isLive) }
        set { set(\.isLive, newValue) }
    }
    /// True: an update's `changed` lists an item only when an attribute in ``attributes``, a sort
    /// key or an attribute the predicate tests changed (or it was renamed, or its conflict state
    /// changed). Default false: any change of a matching item's content or metadata — an edit that
    /// moved its size or dates, its tags — is a change, as with NSMetadataQuery.
    public var reportsChangesOfRequestedAttributesOnly: Bool {
        get { get(\.reportsChangesOfRequestedAttributesOnly) }
        set { set(\.reportsChangesOfRequestedAttributesOnly, newValue) }
    }
    /// `.saved`: right after a daemon restart, the first answer comes at once from the daemon's
    /// saved index, marked by ``Notification/unverified``, and ``Notification/didVerify`` follows
    /// the corrections. Default `.exact`.
    public var freshness: Freshness {
        get { get(\.freshness) }
        set { set(\.freshness, newValue) }
    }

    // MARK: State

    /// Between ``start()`` and ``Notification/didFinishGathering``.
    public var isGathering: Bool { state.withLock { [.starting, .gathering].contains($0.phase) } }
    /// ``start()`` was called (also true once stopped).
    public var isStarted: Bool { state.withLock { $0.phase != .idle } }
    /// Stopped by ``stop()``, by the daemon (non-live query done), or by a lost connection.
    public var isStopped: Bool { state.withLock { $0.phase == .stopped } }
    /// The daemon's id for this query, once started.
    public var queryID: Int? { state.withLock { $0.queryID } }

    /// The current results and the clock they are as of; nil until the daemon sent a clock.
    public var resumePoint: ResumePoint? {
        state.withLock { state in state.clock.map { ResumePoint(clock: $0, results: state.items) } }
    }

    /// The daemon's clock as of the notification the reader took last (nil before the first
    /// that carries one): a program that records how far it has processed records this, and
    /// later resumes from it with the results it had then (``start(resumingFrom:)``).
    public var clockOfLastNotification: String? { state.withLock { $0.takenClock } }

    /// The current results, sorted. Stays readable after ``stop()``.
    public var results: [MetadataItem] { state.withLock { $0.items } }
    /// `results.count`, without copying.
    public var resultCount: Int { state.withLock { $0.items.count } }
    /// One result by position, or nil when `index` is out of range.
    ///
    /// Results change under you as updates arrive: a `resultCount` read before this call may be
    /// stale. Iterate ``results`` (one consistent copy), or wrap the loop in ``disableUpdates()``
    /// / ``enableUpdates()`` as with `NSMetadataQuery`.
    public func result(at index: Int) -> MetadataItem? {
        state.withLock { $0.items.indices.contains(index) ? $0.items[index] : nil }
    }

    // MARK: Lifecycle

    /// Sends `query.start` and returns the notifications.
    ///
    /// - Parameter resumePoint: an earlier query's ``resumePoint``, with the same configuration: the
    ///   daemon answers what changed since then (``Notification/didResume(added:changed:removed:)``)
    ///   instead of everything, or says why it cannot (``Notification/couldNotResume(code:reason:)``,
    ///   then the full set). Either way ``results`` end up as the daemon's current results.
    /// - Throws: ``ProtocolError`` when the daemon refuses the query (`predicate.syntax` with
    ///   an `offset` detail, `container.unknown`, `query.invalidSort`...),
    ///   ``UbiquityKitError/queryAlreadyStarted`` when called twice, or a connection error.
    public func start(resumingFrom resumePoint: ResumePoint? = nil) async throws -> AsyncThrowingStream<Notification, any Error> {
        let configuration = try state.withLock { (state) throws(UbiquityKitError) -> Configuration in
            guard state.phase == .idle else { throw .queryAlreadyStarted }
            state.phase = .starting
            // Unparsable keys are left to the daemon, which answers query.invalidSort.
            state.sort = state.configuration.sortDescriptors.compactMap { try? MetadataSortDescriptor(parsing: $0.wireForm) }
            if let resumePoint { state.replaceResults(resumePoint.results) }
            return state.configuration
        }
        var parameters = Self.parameters(configuration)
        parameters.since = resumePoint?.clock
        do {
            let id = try await connection.startQuery(parameters) { [self] event in handle(event) }
            state.withLock { $0.queryID = id }
        } catch {
            state.withLock { $0.phase = .stopped }
            finish(throwing: error)
            throw error
        }
        // Pulled, not pushed: the reader takes from the bounded buffer at its own pace.
        return AsyncThrowingStream(unfolding: { [self] in try await nextNotification() })
    }

    /// The next notification; nil once the query stopped and everything was taken. Cancelling
    /// the waiting task stops the query.
    private func nextNotification() async throws -> Notification? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Notification?, any Error>) in
                let ready: Result<Notification?, any Error>? = state.withLock { state in
                    if let next = state.buffer.take() {
                        state.takenClock = next.clock
                        return .success(next.notification)
                    }
                    if let end = state.end {
                        state.end = .some(nil)      // an error is thrown once; then the stream just ends
                        return end.map { .failure($0) } ?? .success(nil)
                    }
                    if Task.isCancelled { return .success(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
            Task { await self.stop() }
        }
    }

    /// Queues a notification for the reader, or hands it over when the reader waits.
    private func deliver(_ notification: Notification) {
        let waiter: CheckedContinuation<Notification?, any Error>? = state.withLock { state in
            if let waiter = state.waiter, state.buffer.isEmpty {
                state.waiter = nil
                state.takenClock = state.clock
                return waiter
            }
            state.buffer.append(notification, clock: state.clock) { state.items }
            return nil
        }
        waiter?.resume(returning: notification)
    }

    /// Ends the stream after what is buffered: normally, or with `error`.
    private func finish(throwing error: (any Error)? = nil) {
        let waiter: CheckedContinuation<Notification?, any Error>? = state.withLock { state in
            if state.end == nil { state.end = .some(error) }
            guard state.buffer.isEmpty, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.end = .some(nil)
            return waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// Runs the query once and hands its results to `body` as they arrive, in order, a batch at
    /// a time, without keeping them: ``results`` stays empty, and memory stays at a few batches
    /// however big the answer. The first results come while the rest are on their way, as
    /// `mdfind` prints them: `ubiq query --json` writes a 100k-item answer so.
    ///
    /// ```swift
    /// let query = MetadataQuery(connection: connection, predicateFormat: "kMDItemFSName LIKE '*'")
    /// query.isLive = false
    /// let count = try await query.gather { batch in
    ///     for item in batch { print(item.path) }
    /// }
    /// ```
    ///
    /// `body` runs on the connection's reader task: while it runs, the connection is not read, so
    /// a slow `body` slows the daemon's sending down rather than filling memory (and events of
    /// other queries on the same connection wait too).
    ///
    /// - Returns: How many results were handed over.
    /// - Throws: ``UbiquityKitError/liveQueryCannotGather`` for a live query (``isLive``),
    ///   ``UbiquityKitError/queryAlreadyStarted`` when called twice, ``ProtocolError`` when the
    ///   daemon refuses the query, or a connection error. Batches handed over before a lost
    ///   connection stand; the error says the answer did not finish.
    public func gather(_ body: @escaping @Sendable (MetadataItemBatch) -> Void) async throws -> Int {
        let configuration = try state.withLock { (state) throws(UbiquityKitError) -> Configuration in
            guard state.phase == .idle else { throw .queryAlreadyStarted }
            guard !state.configuration.isLive else { throw .liveQueryCannotGather }
            state.phase = .gathering
            return state.configuration
        }
        let handedOver = Mutex(0)
        let take: @Sendable (MetadataItemBatch) -> Void = { batch in
            guard !batch.isEmpty else { return }
            handedOver.withLock { $0 += batch.count }
            body(batch)
        }
        // Ends when the daemon says the query stopped (after its gathered results), or the
        // connection fails.
        let (stopped, stop) = AsyncThrowingStream.makeStream(of: Never.self)
        do {
            let arriving: Router.ResultsHandler = { pieces in
                for piece in pieces { take(MetadataItemBatch(piece)) }
            }
            let id = try await connection.startQuery(Self.parameters(configuration), results: arriving) { delivery in
                switch delivery {
                case .success(.gatheringFinished(_, .results(let rest, _), _, _)): take(MetadataItemBatch(rest))
                case .success(.stopped): stop.finish()
                case .success: break
                case .failure(let error): stop.finish(throwing: error)
                }
            }
            state.withLock { $0.queryID = id }
            try await withTaskCancellationHandler {
                for try await _ in stopped {}
            } onCancel: {
                stop.finish(throwing: CancellationError())
            }
        } catch {
            await self.stop()
            throw error
        }
        state.withLock { state in
            state.phase = .stopped
            state.released = true
        }
        if let id = queryID {
            connection.removeHandler(query: id)
            // The daemon keeps a stopped query's results until it is released; nothing waits for
            // the answer (every result was handed over), so the caller goes on at once.
            let connection = connection
            Task { _ = try? await connection.send(QueryRelease(query: id)) }
        }
        return handedOver.withLock { $0 }
    }

    /// Holds updates back; they accumulate in the daemon, coalesced per item, until
    /// ``enableUpdates()`` releases them as one update (`NSMetadataQuery.disableUpdates()`).
    public func disableUpdates() async throws {
        try await connection.send(QueryDisableUpdates(query: try startedID()))
    }

    /// Releases updates held since ``disableUpdates()`` as one ``Notification/didUpdate(added:changed:removed:)``.
    public func enableUpdates() async throws {
        try await connection.send(QueryEnableUpdates(query: try startedID()))
    }

    /// Stops the query: no notification follows, the stream ends, ``results`` stay as they are.
    /// The daemon is told to stop and release it; if the connection is gone that is moot.
    public func stop() async {
        let (id, release) = state.withLock { state in
            let release = !state.released
            state.released = true
            state.phase = .stopped
            return (state.queryID, release)
        }
        finish()
        guard let id, release else { return }
        connection.removeHandler(query: id)
        _ = try? await connection.send(QueryStop(query: id))
        _ = try? await connection.send(QueryRelease(query: id))
    }

    private func startedID() throws -> Int {
        guard let id = queryID else { throw UbiquityKitError.queryNotStarted }
        return id
    }

    fileprivate static func parameters(_ c: Configuration) -> QueryParameters {
        let scopes: Set<WireScope> = switch c.searchScopes {
        case .documents: [.documents]
        case .data: [.data]
        case .all: Set(WireScope.allCases)
        }
        // Sort values must come back so updates can be merged in order locally.
        var attributes = c.attributes.isEmpty ? [Attribute.name.canonicalName] : c.attributes
        let requested = Set(attributes.map { Attribute.named($0)?.canonicalName ?? $0 })
        for descriptor in c.sortDescriptors {
            guard let attribute = (try? MetadataSortDescriptor(parsing: descriptor.wireForm))?.attribute,
                  !requested.contains(attribute.canonicalName), !attributes.contains(attribute.canonicalName) else { continue }
            attributes.append(attribute.canonicalName)
        }
        return QueryParameters(predicate: c.predicateFormat, containers: c.containers, scopes: scopes,
                               arguments: c.arguments, variables: c.variables, sort: c.sortDescriptors.map(\.wireForm),
                               attributes: attributes, batchingInterval: c.notificationBatchingInterval, live: c.isLive,
                               changes: c.reportsChangesOfRequestedAttributesOnly ? .requested : nil,
                               freshness: c.freshness == .saved ? .saved : nil)
    }

    // MARK: Events

    /// Applies one event to the results and turns it into a notification. Runs on the
    /// connection's reader task, one event at a time, so results change in the daemon's order.
    private func handle(_ delivery: Result<ServerEvent, UbiquityKitError>) {
        switch delivery {
        case .failure(let error):
            let running = state.withLock { state in
                defer { state.phase = .stopped }
                return state.phase != .stopped
            }
            if running { finish(throwing: error) }
        case .success(let event):
            let (notifications, ends): ([Notification], Bool) = state.withLock { state in
                guard state.phase != .stopped else { return ([], false) }
                let notes = state.apply(event)
                switch event {
                case .stopped, .containerForbidden: break
                default: return (notes, false)
                }
                state.phase = .stopped
                return (notes, true)
            }
            for notification in notifications { deliver(notification) }
            if ends { finish() }
        }
    }
}

extension MetadataQuery.State {
    /// The notifications one event makes, after applying it to the results.
    fileprivate mutating func apply(_ event: ServerEvent) -> [MetadataQuery.Notification] {
        if let clock = event.clock { self.clock = clock }
        var notes: [MetadataQuery.Notification] = []
        // Marks come before the answer they are about, so a reader knows before it sees it.
        if case .gatheringFinished(_, _, _, false) = event { notes.append(.unverified) }
        if case .gatheringFinished(_, .results(let results, let fresh?), _, _) = event {
            // The full set follows the reason, so a reader sees why before it sees everything.
            return notes + [.couldNotResume(code: fresh.code, reason: fresh.reason), gathered(results)]
        }
        return notes + (notification(for: event).map { [$0] } ?? [])
    }

    private mutating func gathered(_ results: [WireItem]) -> MetadataQuery.Notification {
        // The daemon sends results sorted by the query's own descriptors: keep its order.
        let items = kept(results)
        replaceResults(items)
        phase = .live
        return .didFinishGathering(results: items)
    }

    private mutating func notification(for event: ServerEvent) -> MetadataQuery.Notification? {
        switch event {
        case .gatheringStarted:
            phase = .gathering
            return .didStartGathering
        case .gatheringProgress(_, let count):
            return .gatheringProgress(count: count)
        case .gatheringFinished(_, .results(let results, _), _, _):
            return gathered(results)
        case .gatheringFinished(_, .changes(_, let added, let changed, let removed, _), _, _):
            let added = kept(added), changed = kept(changed), removed = kept(removed)
            merge(added: added, changed: changed, removed: removed)
            phase = .live
            return .didResume(added: added, changed: changed, removed: removed)
        case .reset(_, let results, _):
            let items = kept(results)
            replaceResults(items)
            return .didReset(results: items)
        case .update(_, let added, let changed, let removed, _):
            let added = kept(added), changed = kept(changed), removed = kept(removed)
            merge(added: added, changed: changed, removed: removed)
            return .didUpdate(added: added, changed: changed, removed: removed)
        case .verified:
            return .didVerify
        case .resync(_, let container, let reason, let changes):
            return .resync(container: container, reason: reason, changes: changes)
        case .unwatched(_, let container, let path, let reason):
            return .unwatched(container: container, path: path, reason: reason)
        case .containerUnavailable(_, let container, _):
            return .containerUnavailable(container)
        case .containerAvailable(_, let container):
            return .containerAvailable(container)
        case .containerForbidden(_, let container, _):
            return .containerForbidden(container)
        case .stopped, .shuttingDown, .documentLockChanged:
            return nil
        }
    }

    /// The items as this query keeps them. A live query's hold their own fields, read now: it
    /// keeps its results for long, and items still in the daemon's bytes would keep the line
    /// they came in (an answer's whole buffer, for as long as one of its items stays a result).
    /// A one-shot query's stay bytes until asked: `ubiq query --json` prints them as they are.
    private func kept(_ items: [WireItem]) -> [MetadataItem] {
        configuration.isLive ? items.map { MetadataItem($0.standalone()) } : items.map(MetadataItem.init)
    }

    /// A whole result set, already in the daemon's order.
    fileprivate mutating func replaceResults(_ results: [MetadataItem]) {
        items = results
        keys = sort.isEmpty ? Array(repeating: [], count: results.count) : results.map { entry($0).key }
    }

    fileprivate func entry(_ item: MetadataItem) -> MetadataQuery.Entry {
        MetadataQuery.Entry(item: item, key: sort.map { descriptor in
            item.attributes[descriptor.attribute.canonicalName].flatMap { try? Value(json: $0, for: descriptor.attribute) }
        })
    }

    /// The daemon's order: each sort key in turn, then the exact path.
    private func precedes(_ a: MetadataQuery.Entry, _ b: MetadataQuery.Entry) -> Bool {
        for (i, descriptor) in sort.enumerated() {
            let c = MetadataSortDescriptor.order(a.key[i], b.key[i])
            if c != 0 { return descriptor.ascending ? c < 0 : c > 0 }
        }
        return MetadataSortDescriptor.order(.string(a.item.path), .string(b.item.path), exactStrings: true) < 0
    }

    /// Removes what left (and the old places of what changed), then inserts in sort order.
    ///
    /// - Complexity: O(n) for the removal pass plus O(k log n + k·n) for k insertions; a large
    ///   batch is appended and sorted instead, O((n + k) log(n + k)).
    private mutating func merge(added: [MetadataItem], changed: [MetadataItem], removed: [MetadataItem]) {
        // Each path with its spellings: one leaves only spelt with the same bytes, as a
        // canonically equal path (`café` in the other form) is another item.
        var leaving: [String: [String]] = [:]
        func leave(_ path: String) { leaving[path, default: []].append(path) }
        for item in removed { leave(item.path) }
        for item in changed {
            leave(item.path)
            if let old = item.oldPath { leave(old) }
        }
        // An added path already present would be a daemon bug; never show an item twice.
        for item in added { leave(item.path) }
        if !leaving.isEmpty {
            var keptItems: [MetadataItem] = [], keptKeys: [[Value?]] = []
            keptItems.reserveCapacity(items.count)
            keptKeys.reserveCapacity(items.count)
            for i in items.indices {
                let path = items[i].path
                if leaving[path]?.contains(where: { $0.utf8.elementsEqual(path.utf8) }) == true { continue }
                keptItems.append(items[i])
                keptKeys.append(keys[i])
            }
            items = keptItems
            keys = keptKeys
        }

        let arriving = (added + changed).map(entry)
        if arriving.count > 32 {
            let all = (zip(items, keys).map { MetadataQuery.Entry(item: $0, key: $1) } + arriving).sorted(by: precedes)
            items = all.map(\.item)
            keys = all.map(\.key)
            return
        }
        for e in arriving {
            var low = 0, high = items.count
            while low < high {
                let mid = (low + high) / 2
                if precedes(MetadataQuery.Entry(item: items[mid], key: keys[mid]), e) { low = mid + 1 } else { high = mid }
            }
            items.insert(e.item, at: low)
            keys.insert(e.key, at: low)
        }
    }
}
