import Glibc
import NIOPosix
import UbiquityPredicate
import UbiquityProtocol

/// The versions and coordinated-write operations of a connection (docs/versions.md). The daemon
/// only reads metadata here and keeps locks: clients read and resolve versions with their own rights.
extension Session {
    func handleVersions(_ operation: Operation) async throws -> JSONValue {
        switch operation {
        case .versionsList(let path):
            // A package walk can visit many entries: on a thread of NIO's pool, never on the
            // cooperative pool that every connection's requests and events share.
            let registry = context.registry, peer = self.peer
            return try await NIOThreadPool.singleton.runIfActive {
                let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
                try Self.require(.read, location, peer: peer)
                return try VersionCatalog.versions(of: location, for: peer).json
            }
        case .documentLock(let path):
            // A lock holds off every other writer: only one who may write the item itself may take it.
            let item = try await examine(path, needing: .write)
            switch context.documentLocks.lock(item.path, connection: connection, uid: peer.uid) {
            case .success(let lock):
                return .object(["lock": .integer(Int64(lock)), "path": .string(item.path), "etag": item.etag])
            case .failure(.held):
                // Who holds it is not said: another user's uid and pid are none of this peer's business.
                throw VersionError(.locked, "'\(path)' is being saved by another connection; try again when it is unlocked (document.watch tells)",
                                   details: ["path": .string(path)])
            case .failure(.limit(let reached)):
                throw Self.overLimit("locks", reached, release: "document.unlock")
            }
        case .documentUnlock(let lock):
            guard let path = context.documentLocks.unlock(lock, connection: connection) else {
                throw VersionError(.unknownHandle, "no lock \(lock) on this connection", details: ["lock": .integer(Int64(lock))])
            }
            let etag = (try? await examine(path, needing: nil))?.etag ?? .null
            return .object(["lock": .integer(Int64(lock)), "unlocked": .bool(true), "etag": etag])
        case .documentWatch(let path):
            let item = try await examine(path, needing: .read)
            switch context.documentLocks.watch(item.path, connection: connection, uid: peer.uid, outbox: documentOutbox) {
            case .success(let (watch, holder)):
                documentWatches.insert(watch)
                return .object(["watch": .integer(Int64(watch)), "path": .string(item.path), "locked": .bool(holder != nil),
                                "yours": .bool(holder?.connection == connection), "etag": item.etag])
            case .failure(let reached):
                throw Self.overLimit("watches", reached, release: "document.unwatch")
            }
        case .documentUnwatch(let watch):
            guard documentWatches.contains(watch), context.documentLocks.unwatch(watch, connection: connection) else {
                throw VersionError(.unknownHandle, "no watch \(watch) on this connection", details: ["watch": .integer(Int64(watch))])
            }
            documentWatches.remove(watch)
            return .object(["watch": .integer(Int64(watch)), "unwatched": .bool(true)])
        default:
            fatalError("not a versions operation: \(operation.name)")
        }
    }

    /// Throws unless `peer` has `right` on the item, as the kernel would decide (``PeerAccess``):
    /// the daemon's own rights are never lent to a peer.
    private static func require(_ right: PeerAccess.Right, _ location: ItemLocation, peer: PeerCredentials) throws {
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
    private func examine(_ path: String, needing right: PeerAccess.Right?) async throws -> (path: String, etag: JSONValue) {
        let registry = context.registry, peer = self.peer
        return try await NIOThreadPool.singleton.runIfActive {
            let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
            if let right { try Self.require(right, location, peer: peer) }
            return (location.path, Self.currentETag(location))
        }
    }

    /// `server.busy` for a connection or user at its limit of locks or watches.
    private static func overLimit(_ what: String, _ reached: DocumentLocks.LimitReached, release: String) -> ProtocolError {
        ProtocolError(.serverBusy,
                      reached.perUser ? "this user holds \(reached.limit) document \(what) across its connections, the limit per user; end some with \(release)"
                                      : "this connection holds \(reached.limit) document \(what), its limit; end some with \(release)",
                      details: ["limit": .integer(Int64(reached.limit))])
    }

    /// The item's etag now, or null when nothing is there (a lock may be taken to create it).
    private static func currentETag(_ location: ItemLocation) -> JSONValue {
        guard case .success(let status?) = FileStatus.of(location.name, in: location.directory) else { return .null }
        return .string(status.etag.rawValue)
    }
}
