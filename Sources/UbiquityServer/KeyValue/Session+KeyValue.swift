import UbiquityKeyValue
import UbiquityProtocol

/// What the key-value operations of a connection share (docs/kv-store.md; each is answered in its
/// file in `Handlers/`). Each names a container (or means the default one) and is authorised like
/// every other operation: the peer must be allowed to read it.
extension Session {
    /// The container named (or the default one), checked for this peer, and its store.
    func keyValueStore(_ raw: String?) throws -> (ResolvedContainer, ContainerKeyValueStore) {
        let container = try raw.map { try context.registry.container(named: $0, for: peer) } ?? context.registry.defaultContainer(for: peer)
        return (container, try context.keyValue.store(for: container))
    }

    /// Ends every subscription: the connection is gone.
    func releaseKeyValue() async {
        for (number, container) in keyValueSubscriptions { await context.keyValue.unsubscribe(number, container: container) }
        keyValueSubscriptions.removeAll()
    }
}
