import NIOPosix
import UbiquityProtocol

/// What the relational-store operations of a connection share (docs/stores.md; each is answered
/// in its file in `Handlers/`). Each names a container (or means the default one) that the peer
/// must be allowed to read; writing — a save, an open that creates or upgrades a store — also
/// needs the right to write the container's directory, as the kernel would judge it for the peer
/// (``PeerAccess``: mode bits, owner, group, ACL, a read-only mount).
extension Session {
    /// The container named (or the default one), checked for this peer's right to read it.
    func storeContainer(_ raw: String?) throws -> ResolvedContainer {
        try raw.map { try context.registry.container(named: $0, for: peer) } ?? context.registry.defaultContainer(for: peer)
    }

    /// Whether the peer may write and search the container's root directory. The judgment reads
    /// the directory's status and ACL (waits for the disk): on NIO's thread pool.
    func mayWrite(_ container: ResolvedContainer) async -> Bool {
        guard let root = context.registry.heldRoot(of: container) else { return false }
        let peer = self.peer
        return (try? await NIOThreadPool.singleton.runIfActive { PeerAccess.allows([.write, .search], at: root.fd, peer: peer) }) ?? false
    }

    /// Throws `store.forbidden` unless the peer may write the container.
    func requireWrite(_ container: ResolvedContainer, to store: String) async throws {
        guard await mayWrite(container) else {
            let id = container.descriptor.id.rawValue
            throw StoreRequestError(.forbidden, "uid \(peer.uid) may read container '\(id)' but not write it, so it may not change store '\(store)'",
                                    details: ["container": .string(id), "store": .string(store)])
        }
    }

    /// The store `name` of `container`, known to the daemon (opened with its schema before, by
    /// any connection, now or before a restart).
    func knownStore(_ name: String, of container: ResolvedContainer) async throws -> ContainerStore {
        try await context.stores.store(name, of: container, creatingWith: nil).0
    }

    /// Ends every store subscription and live fetch: the connection is gone.
    func releaseStores() async {
        for (_, open) in openStores { await open.store.unsubscribe(open.handle) }
        openStores.removeAll()
        for (watch, store) in liveFetches {
            await store.unwatch(watch)
            outbox.remove(liveFetch: watch)
        }
        liveFetches.removeAll()
    }
}
