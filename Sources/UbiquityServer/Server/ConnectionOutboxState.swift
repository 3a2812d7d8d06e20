import UbiquityProtocol
import UbiquityStore

/// Everything one connection owes its peer besides responses, as one value: whether its queries
/// have events to pull from the engine, the latest lock state per document watch, and per
/// key-value subscription the keys changed since the peer last read, with the latest reason.
/// Pure: transitions return what ``ConnectionOutbox`` must do (resume its waiting writer), so
/// it is tested as a value; `Waiter` is the writer's continuation there.
///
/// Coalesced, never dropped, never a queue: however many changes arrive while the writer is
/// away (the peer does not read), what waits is one entry per watch and one per subscription,
/// holding each changed key once — bounded by the watches and keys, not by the changes. A
/// subscription's keys are bounded too: past its store's key quota (`limit`, the most keys the
/// store may hold) they collapse into "any key may have changed" (`"all": true`), which the peer
/// answers by reading the store again — no more than the store holds, so never dearer than the
/// list. Keys set and removed again one after the other (k1, k2, …) therefore cost at most the
/// quota, not one entry each. A store subscription's changes are folded per row the same way
/// (``PendingStoreChanges``), collapsing past `limit` rows into "any row may have changed"
/// (`store.changed` with `"all": true`), which the peer answers by fetching again.
///
/// ```
/// lock, unlock, lock         ──▶ documents[watch] = locked              (one entry)
/// kv a, kv b, kv a (quota)   ──▶ keyValue[store] = {a, b}, quotaViolationChange
/// kv k1 … k(limit + 1)       ──▶ keyValue[store] = all                  (the keys are let go)
/// store +r1, ~r2, -r1        ──▶ stores[handle] = {~r2, -r1}
/// store r1 … r(limit + 1)    ──▶ stores[handle] = all                   (the rows are let go)
/// live fetch w, w, w         ──▶ liveFetches = [w]                      (fetched again once)
/// the engine has events      ──▶ queriesOwed = true
/// the writer: take()         ──▶ .deliver(pull the queries, [locked], [{a, b}]) and all emptied
///             take()         ──▶ .idle: wait(waiter) keeps the waiter until the next post
/// ```
struct ConnectionOutboxState<Waiter> {
    /// What the writer takes in one go, written as one write: the queries' events (pulled from the
    /// engine by the writer), then the lock changes in the order their watches first changed, then
    /// the key-value changes in the order their subscriptions first changed, then the store
    /// changes in the order their subscriptions first changed.
    struct Delivery {
        var pullQueries = false
        var documents: [ServerEvent] = []
        var keyValue: [KeyValueChange] = []
        var stores: [StoreChange] = []
        /// Live fetches whose store changed: the writer fetches each again and sends the difference.
        var liveFetches: [Int] = []
    }

    enum Take {
        case deliver(Delivery)
        /// Nothing is owed: ``wait(_:)``.
        case idle
        /// The connection is gone: the writer ends.
        case finished
    }

    private struct LockState {
        var path: String
        var locked: Bool
        var yours: Bool
    }

    private struct ChangedKeys {
        var container: String
        var reason: String
        /// nil: any key may have changed (more did than the store may hold).
        var keys: Set<String>?
    }

    private struct ChangedRows {
        var container: String
        var store: String
        var rows: PendingStoreChanges
        var clock: String
    }

    private(set) var queriesOwed = false
    private var storeOrder: [Int] = []
    private var stores: [Int: ChangedRows] = [:]
    /// Live fetches owed a new look, each once, in the order their stores first changed.
    private var liveFetchOrder: [Int] = []
    private var documentOrder: [Int] = []
    private var documents: [Int: LockState] = [:]
    private var keyValueOrder: [Int] = []
    private var keyValue: [Int: ChangedKeys] = [:]
    private var waiter: Waiter?
    private(set) var isFinished = false

    // MARK: Posting

    /// Records the latest lock state of `watch`'s document, replacing one not yet taken.
    mutating func lockChanged(watch: Int, path: String, locked: Bool, yours: Bool) -> Waiter? {
        guard !isFinished else { return nil }
        if documents.updateValue(LockState(path: path, locked: locked, yours: yours), forKey: watch) == nil { documentOrder.append(watch) }
        return wakeWriter()
    }

    /// Adds `change`'s keys to what its subscription has pending; the latest reason stands. Past
    /// `limit` keys (the store's key quota) the subscription owes "any key may have changed"
    /// instead, until the writer takes it.
    mutating func keyValueChanged(_ change: KeyValueChange, limit: Int) -> Waiter? {
        guard !isFinished, change.keys?.isEmpty != true else { return nil }
        var pending = ChangedKeys(container: change.container, reason: change.reason, keys: [])
        if let existing = keyValue[change.store] { pending = existing } else { keyValueOrder.append(change.store) }
        pending.reason = change.reason
        pending.container = change.container
        pending.keys = Self.union(pending.keys, change.keys, limit: limit)
        keyValue[change.store] = pending
        return wakeWriter()
    }

    /// `pending` with `added`, or nil (any key) once either is nil or the union passes `limit`:
    /// it never holds more than `limit` + 1 keys on the way.
    private static func union(_ pending: Set<String>?, _ added: [String]?, limit: Int) -> Set<String>? {
        guard var keys = pending, let added else { return nil }
        for key in added {
            keys.insert(key)
            if keys.count > limit { return nil }
        }
        return keys
    }

    /// Folds one import's (or save's) `result` into what store subscription `handle` has pending;
    /// past `limit` rows it owes "any row may have changed" instead, until the writer takes it.
    mutating func storeChanged(handle: Int, container: String, store: String, result: ImportResult, from source: DeviceID,
                               clock: String, limit: Int) -> Waiter? {
        guard !isFinished, !result.isEmpty else { return nil }
        var pending = stores[handle] ?? ChangedRows(container: container, store: store, rows: PendingStoreChanges(limit: limit), clock: clock)
        if stores[handle] == nil { storeOrder.append(handle) }
        pending.rows.add(result, from: source)
        pending.clock = clock
        stores[handle] = pending
        return wakeWriter()
    }

    /// Store subscription `handle` owes "any row may have changed" (its store was reopened).
    mutating func storeEverything(handle: Int, container: String, store: String, clock: String, limit: Int) -> Waiter? {
        guard !isFinished else { return nil }
        var pending = stores[handle] ?? ChangedRows(container: container, store: store, rows: PendingStoreChanges(limit: limit), clock: clock)
        if stores[handle] == nil { storeOrder.append(handle) }
        pending.rows.markEverything()
        pending.clock = clock
        stores[handle] = pending
        return wakeWriter()
    }

    /// Live fetch `watch`'s store changed (or it just started): it is owed a new look, once.
    mutating func liveFetchOwed(_ watch: Int) -> Waiter? {
        guard !isFinished else { return nil }
        if !liveFetchOrder.contains(watch) { liveFetchOrder.append(watch) }
        return wakeWriter()
    }

    /// The engine has events of this connection's queries (or must be asked again: the queries
    /// handed out last are re-armed by the next pull).
    mutating func queriesReady() -> Waiter? {
        guard !isFinished else { return nil }
        queriesOwed = true
        return wakeWriter()
    }

    /// An ended watch: what it had pending is dropped.
    mutating func forget(watch: Int) {
        if documents.removeValue(forKey: watch) != nil { documentOrder.removeAll { $0 == watch } }
    }

    /// An ended subscription: what it had pending is dropped.
    mutating func forget(store: Int) {
        if keyValue.removeValue(forKey: store) != nil { keyValueOrder.removeAll { $0 == store } }
    }

    /// An ended store subscription: what it had pending is dropped.
    mutating func forget(storeHandle handle: Int) {
        if stores.removeValue(forKey: handle) != nil { storeOrder.removeAll { $0 == handle } }
    }

    /// An ended live fetch: nothing more is owed to it.
    mutating func forget(liveFetch watch: Int) { liveFetchOrder.removeAll { $0 == watch } }

    /// No more events: the writer ends (resume the returned waiter) and posts are ignored.
    mutating func finish() -> Waiter? {
        isFinished = true
        documents.removeAll()
        documentOrder.removeAll()
        keyValue.removeAll()
        keyValueOrder.removeAll()
        stores.removeAll()
        storeOrder.removeAll()
        liveFetchOrder.removeAll()
        defer { waiter = nil }
        return waiter
    }

    // MARK: The writer

    /// Everything owed, emptied.
    mutating func take() -> Take {
        if isFinished { return .finished }
        guard queriesOwed || !documents.isEmpty || !keyValue.isEmpty || !stores.isEmpty || !liveFetchOrder.isEmpty else { return .idle }
        var delivery = Delivery(pullQueries: queriesOwed)
        queriesOwed = false
        delivery.documents = documentOrder.compactMap { watch in
            documents[watch].map { .documentLockChanged(watch: watch, path: $0.path, locked: $0.locked, yours: $0.yours) }
        }
        delivery.keyValue = keyValueOrder.compactMap { store in
            keyValue[store].map { KeyValueChange(store: store, container: $0.container, reason: $0.reason, keys: $0.keys?.sorted()) }
        }
        delivery.stores = storeOrder.compactMap { handle in
            stores[handle].map { StoreChange(handle: handle, container: $0.container, store: $0.store, pending: $0.rows, clock: $0.clock) }
        }
        delivery.liveFetches = liveFetchOrder
        liveFetchOrder.removeAll(keepingCapacity: true)
        stores.removeAll(keepingCapacity: true)
        storeOrder.removeAll(keepingCapacity: true)
        documents.removeAll(keepingCapacity: true)
        documentOrder.removeAll(keepingCapacity: true)
        keyValue.removeAll(keepingCapacity: true)
        keyValueOrder.removeAll(keepingCapacity: true)
        return .deliver(delivery)
    }

    /// The writer found nothing and waits: false when something arrived since its ``take()``
    /// (or the outbox finished), then it must not wait but take again.
    mutating func wait(_ waiter: Waiter) -> Bool {
        guard !isFinished, !queriesOwed, documents.isEmpty, keyValue.isEmpty, stores.isEmpty, liveFetchOrder.isEmpty else { return false }
        self.waiter = waiter
        return true
    }

    private mutating func wakeWriter() -> Waiter? {
        defer { waiter = nil }
        return waiter
    }

    // MARK: Reading

    /// How many entries wait: one per watch, one per changed key of each subscription (one for
    /// a subscription owed "any key"), one per changed row, conflict and contest of each store
    /// subscription (one for a subscription owed "any row").
    var pendingEntries: Int {
        documents.count + liveFetchOrder.count + keyValue.values.reduce(0) { $0 + ($1.keys?.count ?? 1) }
            + stores.values.reduce(0) { total, pending in
                let rows = pending.rows
                return total + (rows.isEverything ? 1 : rows.inserted.count + rows.updated.count + rows.deleted.count + rows.conflicts.count + rows.contests.count)
            }
    }
}
