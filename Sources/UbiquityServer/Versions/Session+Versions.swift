import Glibc
import NIOPosix
import UbiquityProtocol

/// What the versions and coordinated-write operations of a connection share (docs/versions.md;
/// each is answered in its file in `Handlers/`). The daemon only reads metadata here and keeps
/// locks: clients read and resolve versions with their own rights.
extension Session {
    /// Throws unless `peer` has `right` on the item, as the kernel would decide (``PeerAccess``):
    /// the daemon's own rights are never lent to a peer.
    static func require(_ right: PeerAccess.Right, _ location: ItemLocation, peer: PeerCredentials) throws {
        if case .failure(let denial) = PeerAccess.check(right, location.relative, beneath: location.root.fd, peer: peer) {
            guard !denial.isNotFound else {
                throw VersionError(.notFound, "no item at '\(location.path)'", details: ["path": .string(location.path)])
            }
            var error = denial.versionError
            error.details["path"] = .string(location.path)
            throw error
        }
    }

    /// What a lock or watch needs of an item: its path, checked for `right` (none: only found),
    /// and its etag now. Path walks, permission reads and `statx` wait on the disk: on a thread of
    /// NIO's pool, never on the cooperative pool every connection shares.
    func examine(_ path: String, needing right: PeerAccess.Right?) async throws -> (path: String, etag: ItemETag?) {
        let registry = context.registry, peer = self.peer
        return try await NIOThreadPool.singleton.runIfActive {
            let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
            if let right { try Self.require(right, location, peer: peer) }
            return (location.path, Self.currentETag(location))
        }
    }

    /// `server.busy` for a connection or user at its limit of locks or watches.
    static func overLimit(_ what: String, _ reached: DocumentLocks.LimitReached, release: String) -> ProtocolError {
        ProtocolError(.serverBusy,
                      reached.perUser ? "this user holds \(reached.limit) document \(what) across its connections, the limit per user; end some with \(release)"
                                      : "this connection holds \(reached.limit) document \(what), its limit; end some with \(release)",
                      details: ["limit": .integer(Int64(reached.limit))])
    }

    /// The item's etag now, or nil when nothing is there (a lock may be taken to create it).
    private static func currentETag(_ location: ItemLocation) -> ItemETag? {
        guard case .success(let status?) = FileStatus.of(location.name, in: location.directory) else { return nil }
        return status.etag
    }
}
