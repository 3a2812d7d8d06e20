import FoundationEssentials
import NIOCore
import NIOExtras
import NIOPosix
import Synchronization
import UbiquityJSON
import UbiquityProtocol

/// Matches responses to requests and routes events to query handlers. Shared by the
/// connection and its reader task; all state sits behind one lock, and callbacks run outside it.
final class Router: Sendable {
    typealias EventHandler = @Sendable (Result<ServerEvent, UbiquityKitError>) -> Void
    /// Receives a key-value subscription's `kv.changed` events, or the connection's end.
    typealias KeyValueHandler = @Sendable (Result<KeyValueChange, UbiquityKitError>) -> Void
    /// Receives an open store's `store.changed` events, or the connection's end.
    typealias StoreChangeHandler = @Sendable (Result<StoreChange, UbiquityKitError>) -> Void
    /// Receives a live fetch's events (`store.gatheringFinished`, `store.update`,
    /// `store.watchStopped`), or the connection's end.
    typealias LiveFetchHandler = @Sendable (Result<StoreWatchEvent, UbiquityKitError>) -> Void
    /// Receives a query's gathered results as they arrive, before its `query.gatheringFinished`
    /// (which then holds only the results after them).
    typealias ResultsHandler = @Sendable ([EncodedItems]) -> Void

    /// A request waiting for its response.
    private struct Pending {
        /// Reads the response's outcome: the route its events take from now on (registered before
        /// the next line is read), and what then completes the request.
        var read: @Sendable (Result<JSONValue, ProtocolError>) -> (route: Route?, complete: @Sendable () -> Void)
        var fail: @Sendable (any Error) -> Void
    }

    /// Where the events of a subscription a response started go from now on.
    enum Route {
        /// `query.start`: the query's events, and its gathered results as they arrive (``MetadataQuery/gather(_:)``).
        case query(Int, EventHandler, ResultsHandler?)
        /// `document.watch`: the watch's `document.lockChanged` events.
        case watch(Int, EventHandler)
        /// `kv.subscribe`: the store's `kv.changed` events.
        case keyValue(Int, KeyValueHandler)
        /// `store.open`: the store's `store.changed` events (by handle), to the subscriber numbered
        /// by ``nextSubscriber()`` (a connection opening a store again gets the same handle).
        case store(handle: Int, subscriber: Int, StoreChangeHandler)
        /// `store.watch`: the live fetch's events.
        case liveFetch(Int, LiveFetchHandler)
    }

    private struct State {
        var nextID: Int64 = 1
        var pending: [Int64: Pending] = [:]
        var handlers: [Int: EventHandler] = [:]
        /// Queries that take their gathered results as they arrive, by query id.
        var resultsHandlers: [Int: ResultsHandler] = [:]
        /// Items of the line arriving now that nobody took as they came: the line's reading
        /// gets them (``ListedItems``).
        var heldItems: [EncodedItems] = []
        /// `document.watch` subscriptions, by watch id.
        var watchHandlers: [Int: EventHandler] = [:]
        /// `kv.subscribe` subscriptions, by store number.
        var keyValueHandlers: [Int: KeyValueHandler] = [:]
        /// `store.open` subscriptions: by handle, then by subscriber.
        var storeHandlers: [Int: [Int: StoreChangeHandler]] = [:]
        var nextSubscriber = 0
        /// `store.watch` live fetches, by watch number.
        var liveFetchHandlers: [Int: LiveFetchHandler] = [:]
        /// Once set, the connection is unusable and new requests fail with it at once.
        var failure: (any Error)?
        var closeReason: String?
    }

    private let state = Mutex(State())

    /// Why the connection is being closed, when we close it (for the error the reader reports).
    var closeReason: String? {
        get { state.withLock { $0.closeReason } }
        set { state.withLock { $0.closeReason = newValue } }
    }

    /// Sends `operation` and returns its typed result. `route` says, from the result, where the
    /// events of the subscription it started go; it runs on the reader task before the next line is read.
    func send<Operation: ProtocolOperation>(
        _ operation: Operation, writer: NIOAsyncChannelOutboundWriter<ByteBuffer>, eventLoop: any EventLoop,
        route: (@Sendable (Operation.Result) -> Route)? = nil
    ) async throws -> Operation.Result {
        let promise = eventLoop.makePromise(of: Operation.Result.self)
        let pending = Pending(read: { outcome in
            let result: Operation.Result
            do throws(ProtocolError) { result = try Operation.Result(json: try outcome.get()) } catch {
                return (nil, { promise.fail(error) })
            }
            return (route?(result), { promise.succeed(result) })
        }, fail: { promise.fail($0) })
        let registered: Result<Int64, any Error> = state.withLock { state in
            if let failure = state.failure { return .failure(failure) }
            let id = state.nextID
            state.nextID += 1
            state.pending[id] = pending
            return .success(id)
        }
        let id: Int64
        switch registered {
        case .success(let value): id = value
        case .failure(let error):
            promise.fail(error)
            throw error
        }
        do {
            try await writer.write(ByteBuffer(bytes: JSONLine.encodeLine(Request(id: .number(id), operation).json)))
        } catch {
            // The reader may already have failed this request; complete it only if still ours.
            let mine = state.withLock { $0.pending.removeValue(forKey: id) }
            let failure = UbiquityKitError.disconnected(reason: "the request could not be sent: \(error)")
            mine?.fail(failure)
        }
        return try await promise.futureResult.get()
    }

    /// Handles what the reader handed on. Returns false when the connection must be closed.
    func receive(_ input: ServerInput) -> Bool {
        switch input {
        case .arriving(let items):
            receive(items)
            return true
        case .line(let line):
            return receive(line)
        }
    }

    /// Items of a long line's first list, before the line: to the query that takes its gathered
    /// results as they arrive, when they are those, or else held for the line.
    func receive(_ arriving: ArrivingItems) {
        let handler: ResultsHandler? = state.withLock { state in
            if let query = arriving.head.gatheredResultsOf, let handler = state.resultsHandlers[query] { return handler }
            state.heldItems.append(contentsOf: arriving.pieces)
            return nil
        }
        handler?(arriving.pieces)
    }

    /// Handles one line. Returns false when the connection must be closed (unreadable line).
    func receive(_ line: ServerLine) -> Bool {
        let message: ServerMessage
        let held = state.withLock { state in
            defer { state.heldItems = [] }
            return state.heldItems
        }
        let listed = line.listedCount > 0 ? ListedItems(listStart: line.listStart, pieces: held, count: line.listedCount) : nil
        // The scanner, not JSONDecoder: JSONDecoder took most of a second for a 10,000-item answer.
        let parsed = Router.message(line.bytes, listed: listed)
        switch parsed {
        case .success(let read): message = read
        case .failure(let error):
            let shown = String(decoding: line.bytes.readableBytesView.prefix(120), as: UTF8.self)
            let detail = error.message
            closeReason = "unreadable line from ubiquityd"
            fail(.invalidServerMessage("\(detail): \(shown)"))
            return false
        }
        switch message {
        case .response(let response):
            deliver(response)
        case .event(.shuttingDown(let reason)):
            fail(.daemonShuttingDown(reason: reason))
        case .unknownEvent:
            break
        case .keyValueChanged(let change):
            state.withLock { $0.keyValueHandlers[change.store] }?(.success(change))
        case .storeChanged(let change):
            let handlers = state.withLock { state in state.storeHandlers[change.handle].map { Array($0.values) } ?? [] }
            for handler in handlers { handler(.success(change)) }
        case .storeWatch(let event):
            let handler = state.withLock { state in
                guard case .stopped = event else { return state.liveFetchHandlers[event.watch] }
                return state.liveFetchHandlers.removeValue(forKey: event.watch)
            }
            handler?(.success(event))
        case .event(let event):
            if let watch = event.watch {
                state.withLock { $0.watchHandlers[watch] }?(.success(event))
                return true
            }
            guard let query = event.query else { return true }
            let handler = state.withLock { state in
                guard case .stopped = event else { return state.handlers[query] }
                state.resultsHandlers[query] = nil
                return state.handlers.removeValue(forKey: query)
            }
            handler?(.success(event))
        }
        return true
    }

    /// The line's message. A long line that is most of its buffer (an answer) lends its bytes to
    /// the result items read from it, which keep the buffer as long as they live; a short one
    /// (an update's) is copied if anything keeps it, so that a few items kept for long never hold
    /// a large buffer (a live query's results hold their own fields anyway: MetadataQuery).
    /// `listed`: the items of the line's first list, which arrived apart (``ServerLineSplitter``).
    static func message(_ line: ByteBuffer, listed: ListedItems? = nil) -> Result<ServerMessage, ProtocolError> {
        if line.readableBytes >= Router.minimumLentLine, line.readableBytes >= line.storageCapacity / 4 {
            return line.withUnsafeReadableBytesWithStorageManagement { raw, storage in
                let received = ReceivedLine(bytes: raw, keptBy: storage.takeUnretainedValue())
                return Result { () throws(ProtocolError) in try ServerMessage(line: received, listed: listed) }
            }
        }
        return line.withUnsafeReadableBytes { raw in
            Result { () throws(ProtocolError) in
                try ServerMessage(line: raw.assumingMemoryBound(to: UInt8.self), listed: listed)
            }
        }
    }

    /// Lines from this length on keep their buffer rather than a copy.
    static let minimumLentLine = 1 << 16

    private func deliver(_ response: Response) {
        guard case .number(let id)? = response.id else {
            // The daemon could not read one of our requests' ids: it cannot be matched, and only
            // a broken client sends such a request. Fail everything so nobody waits forever.
            if case .failure(let error) = response.outcome { failPending(error) }
            return
        }
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
        let (route, complete) = pending.read(response.outcome)
        if let route {
            state.withLock { state in
                switch route {
                case .query(let query, let handler, let results):
                    state.handlers[query] = handler
                    state.resultsHandlers[query] = results
                case .watch(let watch, let handler): state.watchHandlers[watch] = handler
                case .keyValue(let store, let handler): state.keyValueHandlers[store] = handler
                case .store(let handle, let subscriber, let handler): state.storeHandlers[handle, default: [:]][subscriber] = handler
                case .liveFetch(let watch, let handler): state.liveFetchHandlers[watch] = handler
                }
            }
        }
        complete()
    }

    func removeHandler(query: Int) {
        state.withLock { state in
            state.handlers[query] = nil
            state.resultsHandlers[query] = nil
        }
    }

    /// Routes `document.lockChanged` events of `watch` to `handler` (nil: stop routing them).
    func setWatchHandler(_ handler: EventHandler?, watch: Int) {
        state.withLock { $0.watchHandlers[watch] = handler }
    }

    /// Routes `kv.changed` events of `store` to `handler` (nil: stop routing them).
    func setKeyValueHandler(_ handler: KeyValueHandler?, store: Int) {
        state.withLock { $0.keyValueHandlers[store] = handler }
    }

    /// A number for a store subscriber, unique on this connection.
    func nextSubscriber() -> Int {
        state.withLock { state in
            state.nextSubscriber += 1
            return state.nextSubscriber
        }
    }

    /// Stops routing `store.changed` events of `handle` to `subscriber`.
    func removeStoreHandler(handle: Int, subscriber: Int) {
        state.withLock { state in
            state.storeHandlers[handle]?[subscriber] = nil
            if state.storeHandlers[handle]?.isEmpty == true { state.storeHandlers[handle] = nil }
        }
    }

    /// Stops routing live fetch `watch`'s events.
    func removeLiveFetchHandler(watch: Int) {
        state.withLock { _ = $0.liveFetchHandlers.removeValue(forKey: watch) }
    }

    /// Ends everything: pending requests and query handlers receive `error`; later sends fail at once.
    func fail(_ error: UbiquityKitError) {
        let (pending, handlers, keyValue, stores, liveFetches) = state.withLock { state in
            if state.failure == nil { state.failure = error }
            defer {
                state.pending.removeAll(); state.handlers.removeAll(); state.watchHandlers.removeAll()
                state.resultsHandlers.removeAll(); state.heldItems.removeAll()
                state.keyValueHandlers.removeAll(); state.storeHandlers.removeAll(); state.liveFetchHandlers.removeAll()
            }
            return (Array(state.pending.values), Array(state.handlers.values) + Array(state.watchHandlers.values),
                    Array(state.keyValueHandlers.values), state.storeHandlers.values.flatMap { Array($0.values) },
                    Array(state.liveFetchHandlers.values))
        }
        for p in pending { p.fail(error) }
        for h in handlers { h(.failure(error)) }
        for h in keyValue { h(.failure(error)) }
        for h in stores { h(.failure(error)) }
        for h in liveFetches { h(.failure(error)) }
    }

    private func failPending(_ error: any Error) {
        let pending = state.withLock { state in
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for p in pending { p.fail(error) }
    }
}
