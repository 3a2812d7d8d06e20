public import FoundationEssentials
import Synchronization
public import UbiquityKeyValue
import UbiquityProtocol

/// A container's key-value store, shaped like `NSUbiquitousKeyValueStore` (docs/kv-store.md).
///
/// Getters read a local copy, so they are immediate; the copy is loaded by ``open(_:connection:)``
/// and kept current by the daemon's `kv.changed` events. Setters return once the daemon has the
/// value on disk (they throw otherwise: a quota, a bad value, a lost connection). Changes made
/// elsewhere — another process, another device — arrive on ``externalChanges()`` after the local
/// copy already holds them; this store's own writes are not reported there.
///
/// Memory stays bounded whoever reads or does not: at most ``maxWaitingChanges`` changes wait for
/// each ``externalChanges()`` consumer (past that the oldest are dropped: the local copy is current
/// anyway), and at most ``maxWaitingChanges`` of the daemon's events wait to be applied (past that
/// they fold into one change naming every key they named, or, past the store's key quota, into
/// "any key may have changed").
///
/// When the daemon says that any key may have changed (`kv.changed` with `"all": true`: more keys
/// changed than the store may hold while this connection was not reading), the store is read
/// again whole and the change names exactly the keys whose values differ from the local copy's
/// (``KeyValueStoreChange/reread``): no changed key is ever left out.
///
/// ```swift
/// let store = try await KeyValueStore.open(connection: connection)
/// try await store.set("name", forKey: "sortOrder")
/// print(store.string(forKey: "sortOrder") ?? "-")
/// for await change in store.externalChanges() { print(change.reason, change.keys) }
/// ```
public final class KeyValueStore: Sendable {
    /// The container whose store this is.
    public let container: String
    private let connection: UbiquityConnection
    /// The `kv.subscribe` number.
    private let subscription: Int
    private let state = Mutex(State())
    /// Consumers of ``externalChanges()``.
    private let observers = Subscribers<KeyValueStoreChange>()
    /// Wakes the task that applies ``State/pending`` (one wake-up waits at most: it takes them all).
    private let incoming: AsyncStream<Void>.Continuation

    /// How many changes wait, at most, for an ``externalChanges()`` consumer that does not read
    /// (the oldest are dropped past it), and how many of the daemon's `kv.changed` events wait to be
    /// applied (past it they fold into one naming every key).
    public static let maxWaitingChanges = 256

    private struct State {
        var values: [String: KVValue] = [:]
        /// `kv.changed` events received and not yet applied, in arrival order.
        var pending: [KeyValueChange] = []
        /// The store's key quota (from `kv.all`): past it, folded events become "any key".
        var maxKeys = KVQuota().maxKeys
        /// The connection was lost: apply what is pending, then end.
        var ended = false
    }

    private init(container: String, connection: UbiquityConnection, subscription: Int, incoming: AsyncStream<Void>.Continuation) {
        self.container = container
        self.connection = connection
        self.subscription = subscription
        self.incoming = incoming
    }

    /// Subscribes to the store of `container` (nil: the default container) and loads it.
    public static func open(_ container: String? = nil, connection: UbiquityConnection) async throws -> KeyValueStore {
        let (wakeUps, sink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Events that come before the store exists wait beside it, bounded the same way.
        let box = Mutex<(store: KeyValueStore?, early: [Result<KeyValueChange, UbiquityKitError>])>((nil, []))
        let result = try await connection.subscribeKeyValue(container: container) { event in
            box.withLock { box in
                if let store = box.store { store.receive(event); return }
                box.early.append(event)
                if box.early.count > maxWaitingChanges { box.early.removeFirst() }
            }
        }
        let store = KeyValueStore(container: result.container, connection: connection, subscription: result.store, incoming: sink)
        box.withLock { box in
            box.store = store
            for event in box.early { store.receive(event) }
            box.early = []
        }
        try await store.reloadAll()
        Task { await store.apply(wakeUps) }
        return store
    }

    /// Keeps one event of the daemon for ``apply(_:)``, folding them all into one past
    /// ``maxWaitingChanges`` (into "any key" past the store's key quota, as the daemon does).
    private func receive(_ event: Result<KeyValueChange, UbiquityKitError>) {
        state.withLock { state in
            switch event {
            case .failure: state.ended = true
            case .success(let change):
                state.pending.append(change)
                if state.pending.count > KeyValueStore.maxWaitingChanges {
                    var union = Set<String>()
                    let anyKey = state.pending.contains { waiting in
                        guard let named = waiting.keys else { return true }
                        union.formUnion(named)
                        return union.count > state.maxKeys
                    }
                    state.pending = [KeyValueChange(store: change.store, container: change.container, reason: change.reason,
                                                    keys: anyKey ? nil : union.sorted())]
                }
            }
        }
        incoming.yield()
    }

    // MARK: Reading (from the local copy)

    /// The value of `key`, of whatever type; nil when the key has none.
    public func object(forKey key: String) -> KVValue? { state.withLock { $0.values[key] } }
    public func string(forKey key: String) -> String? {
        if case .string(let s)? = object(forKey: key) { return s }
        return nil
    }
    /// 0 when the key has no number (a whole double counts).
    public func longLong(forKey key: String) -> Int64 {
        switch object(forKey: key) {
        case .integer(let i)?: i
        case .double(let d)? where d.rounded() == d && abs(d) < 9.2e18: Int64(d)
        default: 0
        }
    }
    /// 0 when the key has no number.
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .double(let d)?: d
        case .integer(let i)?: Double(i)
        default: 0
        }
    }
    /// false when the key has no boolean.
    public func bool(forKey key: String) -> Bool {
        if case .bool(let b)? = object(forKey: key) { return b }
        return false
    }
    public func data(forKey key: String) -> Data? {
        if case .data(let bytes)? = object(forKey: key) { return Data(bytes) }
        return nil
    }
    public func date(forKey key: String) -> Date? {
        if case .date(let millis)? = object(forKey: key) { return Date(timeIntervalSince1970: Double(millis) / 1000) }
        return nil
    }
    public func array(forKey key: String) -> [KVValue]? {
        if case .array(let a)? = object(forKey: key) { return a }
        return nil
    }
    public func dictionary(forKey key: String) -> [String: KVValue]? {
        if case .dictionary(let d)? = object(forKey: key) { return d }
        return nil
    }
    /// Every key with its value.
    public var dictionaryRepresentation: [String: KVValue] { state.withLock { $0.values } }

    // MARK: Writing (acknowledged once on disk)

    /// Sets `value` for `key`; nil removes the key. Returns once the daemon has it on disk.
    /// - Throws: ``ProtocolError`` with `kv.quotaExceeded`, `kv.invalidKey`, `kv.invalidValue`
    ///   or `kv.storageFailed`; ``UbiquityKitError`` when the daemon cannot be reached.
    public func set(_ value: KVValue?, forKey key: String) async throws {
        if let value {
            try await connection.send(KVSet(container: container, key: key, value: value.wire))
        } else {
            try await connection.send(KVRemove(container: container, key: key))
        }
        state.withLock { $0.values[key] = value }
    }
    public func set(_ value: String, forKey key: String) async throws { try await set(.string(value), forKey: key) }
    public func set(_ value: Int64, forKey key: String) async throws { try await set(.integer(value), forKey: key) }
    public func set(_ value: Int, forKey key: String) async throws { try await set(.integer(Int64(value)), forKey: key) }
    public func set(_ value: Double, forKey key: String) async throws { try await set(.double(value), forKey: key) }
    public func set(_ value: Bool, forKey key: String) async throws { try await set(.bool(value), forKey: key) }
    public func set(_ value: Data, forKey key: String) async throws { try await set(.data([UInt8](value)), forKey: key) }
    /// Kept to the millisecond.
    public func set(_ value: Date, forKey key: String) async throws {
        try await set(.date(Int64((value.timeIntervalSince1970 * 1000).rounded(.down))), forKey: key)
    }
    public func set(_ value: [KVValue], forKey key: String) async throws { try await set(.array(value), forKey: key) }
    public func set(_ value: [String: KVValue], forKey key: String) async throws { try await set(.dictionary(value), forKey: key) }
    public func removeObject(forKey key: String) async throws { try await set(nil, forKey: key) }

    /// Asks the daemon to read every device's file now, then reloads the local copy.
    @discardableResult
    public func synchronize() async throws -> Bool {
        try await connection.send(KVSynchronize(container: container))
        try await reloadAll()
        return true
    }

    // MARK: External changes

    /// Changes made elsewhere, from now on, each delivered after the local copy holds it. Ends
    /// when the store is closed or the connection is lost. Every call returns its own sequence.
    ///
    /// At most ``maxWaitingChanges`` changes wait for a consumer that does not read; past that the
    /// oldest are dropped (the local copy, which the getters read, is current regardless).
    public func externalChanges() -> AsyncStream<KeyValueStoreChange> {
        observers.stream(buffering: KeyValueStore.maxWaitingChanges)
    }

    /// Stops the subscription; ``externalChanges()`` sequences end. The connection stays open.
    public func close() async {
        try? await connection.unsubscribeKeyValue(subscription)
        incoming.finish()
    }

    /// Replaces the local copy with the daemon's. Returns the keys whose values differ (added,
    /// changed, removed), sorted: compared with the copy as it is when the answer replaces it, so
    /// this store's own writes answered meanwhile do not count.
    @discardableResult
    private func reloadAll() async throws -> [String] {
        let result = try await connection.send(KVAll(container: container))
        var decoded: [String: KVValue] = [:]
        for (key, wire) in result.values { decoded[key] = try KVValue(wire: wire, path: "values.\(key)") }
        return state.withLock { state in
            let before = state.values
            state.values = decoded
            state.maxKeys = result.maxKeys
            return Set(before.keys).union(decoded.keys).filter { before[$0] != decoded[$0] }.sorted()
        }
    }

    /// Applies each `kv.changed` in order: refreshes its keys, then tells observers. Ends when
    /// the store is closed or the connection is lost.
    private func apply(_ wakeUps: AsyncStream<Void>) async {
        wakeUps: for await _ in wakeUps {
            while true {
                let (batch, ended) = state.withLock { state in
                    defer { state.pending.removeAll() }
                    return (state.pending, state.ended)
                }
                for change in batch { await apply(change) }
                if ended { break wakeUps }
                if batch.isEmpty { break }
            }
        }
        observers.finish()
    }

    private func apply(_ change: KeyValueChange) async {
        let reason = KVChangeReason(rawValue: change.reason) ?? .serverChange
        let told: KeyValueStoreChange
        if let keys = change.keys {
            for key in keys {
                guard let result = try? await connection.send(KVGet(container: container, key: key)) else { continue }
                let value = result.value.flatMap { try? KVValue(wire: $0) }
                state.withLock { $0.values[key] = value }
            }
            told = KeyValueStoreChange(reason: reason, keys: keys)
        } else {
            // Any key may have changed: what did is what differs from the local copy. A store
            // that cannot be read now (the connection is going) tells nothing it cannot name.
            guard let differing = try? await reloadAll() else { return }
            told = KeyValueStoreChange(reason: reason, keys: differing, reread: true)
        }
        for observer in observers.continuations { observer.yield(told) }
    }
}
