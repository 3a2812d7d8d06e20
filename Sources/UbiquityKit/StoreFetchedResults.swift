import Synchronization
import UbiquityJSON
import UbiquityProtocol
import UbiquityStore

/// A live fetch (`NSFetchedResultsController`'s role, from the daemon's `store.watch`): ``rows``
/// is always what a fresh fetch of the request would return, in its order, and iterating gives a
/// ``StoreFetchedSnapshot`` each time the rows changed — first the rows as gathered, then the
/// rows with what was added, changed and removed since the snapshot before.
///
/// One consumer iterates. A consumer that reads slowly gets one snapshot covering everything
/// since the one before (the differences fold), never a queue of stale ones; memory holds the
/// rows twice at most. The sequence ends (throwing) when the live fetch is stopped by the
/// daemon (`store.watchStopped`: ``ProtocolError`` with its code) or the connection is lost,
/// and ends (without error) after ``stop()``.
///
/// ```swift
/// let live = try await store.fetchedResults(StoreFetchRequest(table: "items", sortDescriptors: [.init(key: "name")]))
/// for try await snapshot in live { print(snapshot.rows.count, snapshot.added.count, snapshot.removed.count) }
/// ```
public final class StoreFetchedResults: AsyncSequence, Sendable {
    public typealias Element = StoreFetchedSnapshot

    public let request: StoreFetchRequest
    private let schema: Schema
    private let state = Mutex(State())
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct State {
        /// The rows now, by id; nil until the first `store.gatheringFinished`.
        var rows: [String: StoreRow]?
        var clock = ""
        /// The rows as the last snapshot handed over had them; nil before the first.
        var delivered: [String: StoreRow]?
        var failure: (any Error)?
        var watch: Int?
        var connection: UbiquityConnection?
        var stopped = false
    }

    init(request: StoreFetchRequest, schema: Schema) {
        self.request = request
        self.schema = schema
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func started(watch: Int, connection: UbiquityConnection) {
        state.withLock { state in
            state.watch = watch
            state.connection = connection
        }
    }

    /// The rows now, in the request's order (empty before they are first gathered).
    public var rows: [StoreRow] {
        let held = state.withLock { $0.rows.map { Array($0.values) } ?? [] }
        return held.sorted(by: request.precedes)
    }

    /// The store's clock token of ``rows``.
    public var clock: String { state.withLock { $0.clock } }

    /// Applies one event of the live fetch (on the connection's reader task).
    func receive(_ event: Result<StoreWatchEvent, UbiquityKitError>) {
        let finish: Bool = state.withLock { state in
            switch event {
            case .failure(let error):
                state.failure = state.failure ?? error
                return true
            case .success(.stopped(_, let code, let reason)):
                state.failure = state.failure ?? ProtocolError(.init(rawValue: code), reason)
                return true
            case .success(.gatheringFinished(_, let rows, let clock)):
                guard let read = try? self.byID(rows) else {
                    state.failure = UbiquityKitError.invalidServerMessage("store.gatheringFinished: a row does not fit the schema")
                    return true
                }
                state.rows = read
                state.clock = clock
            case .success(.update(_, let added, let changed, let removed, let clock)):
                guard var rows = state.rows, let added = try? self.byID(added), let changed = try? self.byID(changed),
                      let removed = try? self.byID(removed) else {
                    state.failure = UbiquityKitError.invalidServerMessage("store.update: a row does not fit the schema, or came before the rows")
                    return true
                }
                for id in removed.keys { rows[id] = nil }
                rows.merge(changed) { _, new in new }
                rows.merge(added) { _, new in new }
                state.rows = rows
                state.clock = clock
            }
            return false
        }
        wake.yield()
        if finish { wake.finish() }
    }

    private func byID(_ json: [JSONValue]) throws(ProtocolError) -> [String: StoreRow] {
        var rows: [String: StoreRow] = [:]
        for row in json {
            let read = try StoreRow(json: row, table: request.table, schema: schema)
            rows[read.id] = read
        }
        return rows
    }

    /// The next snapshot: what changed since the one handed over before. Nil when nothing did.
    private func nextSnapshot() -> StoreFetchedSnapshot? {
        let taken: (now: [String: StoreRow], before: [String: StoreRow]?, clock: String)? = state.withLock { state in
            guard let rows = state.rows else { return nil }
            defer { state.delivered = rows }
            return (rows, state.delivered, state.clock)
        }
        guard let taken else { return nil }
        let sorted = taken.now.values.sorted(by: request.precedes)
        guard let before = taken.before else {
            return StoreFetchedSnapshot(rows: sorted, added: sorted, changed: [], removed: [], clock: taken.clock, isInitial: true)
        }
        var added: [StoreRow] = [], changed: [StoreRow] = []
        for row in sorted {
            if let old = before[row.id] { if old != row { changed.append(row) } } else { added.append(row) }
        }
        let removed = before.values.filter { taken.now[$0.id] == nil }.sorted(by: request.precedes)
        guard !(added.isEmpty && changed.isEmpty && removed.isEmpty) else { return nil }
        return StoreFetchedSnapshot(rows: sorted, added: added, changed: changed, removed: removed, clock: taken.clock, isInitial: false)
    }

    /// Ends the live fetch (`store.unwatch`); iteration ends without error.
    public func stop() async {
        let (watch, connection) = state.withLock { state in
            state.stopped = true
            return (state.watch, state.connection)
        }
        wake.finish()
        guard let watch, let connection else { return }
        try? await connection.unwatchStore(watch)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let results: StoreFetchedResults
        var wakeUps: AsyncStream<Void>.Iterator

        public mutating func next() async throws -> StoreFetchedSnapshot? {
            while await wakeUps.next() != nil {
                if let snapshot = results.nextSnapshot() { return snapshot }
            }
            // Ended: what arrived before the end is handed over first, then the end's reason.
            if let snapshot = results.nextSnapshot() { return snapshot }
            let (failure, stopped) = results.state.withLock { ($0.failure, $0.stopped) }
            if let failure, !stopped { throw failure }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(results: self, wakeUps: wakeUps.makeAsyncIterator()) }
}
