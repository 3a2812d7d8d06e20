import UbiquityKeyValue
import UbiquityPredicate
import UbiquityProtocol

/// The key-value operations of a connection (docs/kv-store.md). Each names a container (or means
/// the default one) and is authorised like every other operation: the peer must be allowed to read it.
extension Session {
    func handleKeyValue(_ operation: Operation) async throws -> JSONValue {
        switch operation {
        case .kvGet(let container, let key):
            let (resolved, store) = try keyValueStore(container)
            let value = try await store.value(forKey: key)
            return .object(["container": .string(resolved.descriptor.id.rawValue), "key": .string(key), "value": value?.wire ?? .null])
        case .kvSet(let container, let key, let wire):
            let value = try KVValue(wire: wire)
            let (resolved, store) = try keyValueStore(container)
            _ = try await store.write(value, forKey: key, connection: connection)
            return .object(["container": .string(resolved.descriptor.id.rawValue), "key": .string(key), "stored": .bool(true)])
        case .kvRemove(let container, let key):
            let (resolved, store) = try keyValueStore(container)
            let existed = try await store.write(nil, forKey: key, connection: connection)
            return .object(["container": .string(resolved.descriptor.id.rawValue), "key": .string(key), "removed": .bool(existed)])
        case .kvAll(let container):
            let (resolved, store) = try keyValueStore(container)
            let (values, usage) = try await store.all()
            return .object(["container": .string(resolved.descriptor.id.rawValue), "values": .object(values.mapValues(\.wire)),
                            "usage": usage.json, "quota": await store.quota.json])
        case .kvSynchronize(let container):
            let (resolved, store) = try keyValueStore(container)
            try await store.ensureLoaded()
            let changed = await store.reload()
            return .object(["container": .string(resolved.descriptor.id.rawValue), "synchronized": .bool(true),
                            "changed": .array(changed.map { .string($0) })])
        case .kvSubscribe(let container):
            let (resolved, store) = try keyValueStore(container)
            let number = context.keyValue.nextSubscription()
            try await store.subscribe(KeyValueSubscriber(store: number, connection: connection, sink: keyValueEventSink))
            keyValueSubscriptions[number] = resolved.descriptor.id.rawValue
            return .object(["store": .integer(Int64(number)), "container": .string(resolved.descriptor.id.rawValue)])
        case .kvUnsubscribe(let number):
            guard let container = keyValueSubscriptions.removeValue(forKey: number) else {
                throw KeyValueError(.unknownStore, "no key-value subscription \(number) on this connection", details: ["store": .integer(Int64(number))])
            }
            await context.keyValue.unsubscribe(number, container: container)
            return .object(["store": .integer(Int64(number)), "unsubscribed": .bool(true)])
        default:
            fatalError("not a key-value operation: \(operation.name)")
        }
    }

    /// The container named (or the default one), checked for this peer, and its store.
    private func keyValueStore(_ raw: String?) throws -> (ResolvedContainer, KeyValueStore) {
        let container = try raw.map { try context.registry.container(named: $0, for: peer) } ?? context.registry.defaultContainer(for: peer)
        return (container, try context.keyValue.store(for: container))
    }

    /// Ends every subscription: the connection is gone.
    func releaseKeyValue() async {
        for (number, container) in keyValueSubscriptions { await context.keyValue.unsubscribe(number, container: container) }
        keyValueSubscriptions.removeAll()
        keyValueEventSink.finish()
    }
}
