import Synchronization
import UbiquityJSON
public import UbiquityProtocol
public import UbiquityStore

/// A container's relational store as the daemon serves it (docs/stores.md), shaped like Core
/// Data's persistent store with its context: open it with the app's schema, collect changes in a
/// ``StoreContext`` and save them as one transaction, fetch rows with a ``StoreFetchRequest``,
/// keep a fetch live with ``fetchedResults(_:)`` (`NSFetchedResultsController`), and hear what
/// other devices and processes changed on ``importNotifications()``.
///
/// ```swift
/// let store = try await PersistentStore.open("grocery", schema: schema, connection: connection)
/// let context = store.newContext()
/// let carrots = try context.insert(into: "items", ["name": .string("carrots")])
/// let mall = try context.insert(into: "tags", ["name": .string("mall")])   // id derived from the name
/// context.relate("tags", from: carrots, to: mall)
/// try await context.save()
/// let rows = try await store.fetch(StoreFetchRequest(table: "items", related: ["tags"]))
/// for await note in store.importNotifications() { print(note.devices, note.inserted) }
/// ```
///
/// Memory stays bounded whoever reads or does not: at most ``maxWaitingNotifications``
/// notifications wait for each ``importNotifications()`` consumer; one that falls further behind
/// is told "any row may have changed" (``StoreImportNotification/isAll``) instead of what it
/// missed. What waits in the daemon for this connection is bounded there (`pendingRowsPerStore`).
public final class PersistentStore: Sendable {
    /// The container and the store's name.
    public let container: String
    public let name: String
    /// This device's id: the name of its own log folder.
    public let device: String
    /// The schema in force when the store was opened: the newest any client opened it with
    /// (rows are read by it).
    public let schema: Schema
    /// What opening did: `created`, `upgraded` or `opened`.
    public let opened: String
    let connection: UbiquityConnection
    /// The `store.open` handle of this connection's `store.changed` events, and this store's
    /// number among their subscribers.
    private let handle: Int
    private let subscriber: Int
    private let state = Mutex(State())
    /// Consumers of ``importNotifications()``.
    private let observers = Subscribers<StoreImportNotification>()

    /// How many notifications wait, at most, for an ``importNotifications()`` consumer that does
    /// not read; past it the consumer is told that any row may have changed.
    public static let maxWaitingNotifications = 256

    private struct State {
    }

    private init(description: StoreDescription, connection: UbiquityConnection, handle: Int, subscriber: Int) {
        container = description.container
        name = description.store
        device = description.device
        schema = description.schema
        opened = description.opened ?? "opened"
        self.connection = connection
        self.handle = handle
        self.subscriber = subscriber
    }

    /// Opens store `name` of `container` (nil: the first container this user may read) with
    /// `schema`: creates it, upgrades it when the schema only adds to the one in force, and
    /// subscribes to its changes.
    ///
    /// - Throws: ``ProtocolError`` — `store.invalidName`, `store.invalidSchema`,
    ///   `store.schemaNotAdditive` (naming the table, column or relationship), `store.forbidden`,
    ///   `container.unknown` —, or ``UbiquityKitError`` when the daemon cannot be reached.
    public static func open(_ name: String, schema: Schema, container: String? = nil,
                            connection: UbiquityConnection) async throws -> PersistentStore {
        // Events that come before the store exists wait beside it, bounded the same way.
        let box = Mutex<(store: PersistentStore?, early: [StoreChange])>((nil, []))
        let subscriber = connection.nextStoreSubscriber()
        let description = try await connection.openStore(StoreOpen(container: container, store: name, schema: schema),
                                                         subscriber: subscriber) { event in
            guard case .success(let change) = event else {
                box.withLock { $0.store }?.finishObservers()
                return
            }
            let store: PersistentStore? = box.withLock { box in
                if let store = box.store { return store }
                box.early.append(change)
                if box.early.count > maxWaitingNotifications { box.early.removeFirst() }
                return nil
            }
            store?.tell(StoreImportNotification(change))
        }
        guard let handle = description.handle else {
            throw ProtocolError.malformed("store.open answered without a handle", field: "handle")
        }
        let store = PersistentStore(description: description, connection: connection, handle: handle, subscriber: subscriber)
        let early = box.withLock { box in
            box.store = store
            defer { box.early = [] }
            return box.early
        }
        for change in early { store.tell(StoreImportNotification(change)) }
        return store
    }

    // MARK: Saving

    /// A new context whose changes ``StoreContext/save()`` saves to this store.
    public func newContext() -> StoreContext { StoreContext(store: self) }

    /// Saves `changes` as one transaction: all of them or none. Returns once this device's
    /// segment holding it is on disk.
    ///
    /// - Throws: ``ProtocolError`` `store.invalidChange` naming the change that does not fit (nothing
    ///   is saved), `store.forbidden`, `store.storageFailed`.
    @discardableResult
    public func save(_ changes: [StoreSaveChange]) async throws -> StoreSave.Result {
        try await connection.send(StoreSave(container: container, store: name, changes: changes))
    }

    // MARK: Fetching

    /// The rows `request` names, in its order.
    ///
    /// - Throws: ``ProtocolError`` — `store.invalidChange` for an unknown table or column (with a
    ///   "did you mean"), `store.answerTooLarge` past `maxAnswerBytes` (ask with a limit).
    public func fetch(_ request: StoreFetchRequest) async throws -> [StoreRow] {
        let answer = try await connection.send(wire(request))
        return try rows(answer.rows, table: request.table)
    }

    /// Keeps `request` fetched: the rows now, then every change of them (`store.watch`).
    public func fetchedResults(_ request: StoreFetchRequest) async throws -> StoreFetchedResults {
        let results = StoreFetchedResults(request: request, schema: schema)
        let watch = try await connection.watchStore(StoreWatch(wire(request))) { event in results.receive(event) }
        results.started(watch: watch, connection: connection)
        return results
    }

    /// The store's schema in force and how far each device's log is imported (`store.describe`).
    public func describe() async throws -> StoreDescription {
        try await connection.send(StoreDescribe(container: container, store: name))
    }

    /// Stops this device's compaction from waiting for `device` (one that will not come back),
    /// until that device acknowledges again; nothing of its files is removed (`store.forget`).
    ///
    /// - Throws: ``ProtocolError`` — `store.unknownDevice`, `store.ownDevice`, `store.forbidden`
    ///   when the peer may not write the container.
    @discardableResult
    public func forget(device: String) async throws -> StoreForget.Result {
        try await connection.send(StoreForget(container: container, store: name, device: device))
    }

    func wire(_ request: StoreFetchRequest) -> StoreFetch {
        StoreFetch(container: container, store: name, table: request.table, where: request.conditions, predicate: request.predicate,
                   related: request.related, sort: request.sortDescriptors.map(\.wire), limit: request.fetchLimit)
    }

    func rows(_ json: [JSONValue], table: String) throws(ProtocolError) -> [StoreRow] {
        var rows: [StoreRow] = []
        rows.reserveCapacity(json.count)
        for row in json { rows.append(try StoreRow(json: row, table: table, schema: schema)) }
        return rows
    }

    // MARK: Import notifications

    /// What changed elsewhere, from now on: other devices' imported segments and other
    /// connections' saves (not this connection's). Ends when the store is closed or the connection
    /// is lost. Every call returns its own sequence.
    public func importNotifications() -> AsyncStream<StoreImportNotification> {
        observers.stream(buffering: PersistentStore.maxWaitingNotifications)
    }

    /// Hands `notification` to every observer; one whose buffer is full gets "any row" after it,
    /// which covers what was dropped.
    private func tell(_ notification: StoreImportNotification) {
        for observer in observers.continuations {
            if case .dropped = observer.yield(notification) {
                observer.yield(.all(clock: notification.clock, devices: notification.devices))
            }
        }
    }

    private func finishObservers() {
        observers.finish()
    }

    /// Stops hearing this store's changes: ``importNotifications()`` sequences end. The
    /// connection stays open (the daemon's subscription ends with it).
    public func close() {
        connection.stopStoreNotifications(handle: handle, subscriber: subscriber)
        finishObservers()
    }
}
