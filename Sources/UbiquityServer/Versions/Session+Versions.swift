import Glibc
import UbiquityPredicate
import UbiquityProtocol

/// The versions and coordinated-write operations of a connection (docs/versions.md).
extension Session {
    func handleVersions(_ operation: Operation) throws -> JSONValue {
        switch operation {
        case .versionsList(let path):
            return try VersionCatalog.versions(of: try locate(path)).json
        case .versionRead(let path, let version, let offset, let length):
            return try VersionReader.read(try locate(path), version: version, offset: offset, length: length)
        case .versionResolve(let path, let keep, let etag, let removeOthers):
            let location = try locate(path)
            let result = try VersionResolver.resolve(location, keep: keep, etag: etag, removeOthers: removeOthers)
            context.logger.info("conflict resolved", metadata: [
                "path": "\(path)", "kept": "\(keep)", "peer_uid": "\(peer.uid)",
                "container": "\(location.container.descriptor.id)",
            ])
            return result
        case .documentLock(let path):
            let location = try locate(path)
            switch context.documentLocks.lock(location.path, connection: connection, uid: peer.uid, pid: peer.pid) {
            case .success(let lock):
                return .object(["lock": .integer(Int64(lock)), "path": .string(location.path), "etag": currentETag(location)])
            case .failure(let holder):
                throw VersionError(.locked, "'\(path)' is being saved by another connection (uid \(holder.uid), pid \(holder.pid)); try again when it is unlocked",
                                   details: ["path": .string(path),
                                             "holder": .object(["uid": .integer(Int64(holder.uid)), "pid": .integer(Int64(holder.pid))])])
            }
        case .documentUnlock(let lock):
            guard let path = context.documentLocks.unlock(lock, connection: connection) else {
                throw VersionError(.unknownHandle, "no lock \(lock) on this connection", details: ["lock": .integer(Int64(lock))])
            }
            let etag = (try? locate(path)).map(currentETag) ?? .null
            return .object(["lock": .integer(Int64(lock)), "unlocked": .bool(true), "etag": etag])
        case .documentWatch(let path):
            let location = try locate(path)
            let (watch, holder) = context.documentLocks.watch(location.path, connection: connection, events: documentEventSink)
            documentWatches.insert(watch)
            return .object(["watch": .integer(Int64(watch)), "path": .string(location.path), "locked": .bool(holder != nil),
                            "yours": .bool(holder?.connection == connection), "etag": currentETag(location)])
        case .documentUnwatch(let watch):
            guard documentWatches.remove(watch) != nil, context.documentLocks.unwatch(watch, connection: connection) else {
                throw VersionError(.unknownHandle, "no watch \(watch) on this connection", details: ["watch": .integer(Int64(watch))])
            }
            return .object(["watch": .integer(Int64(watch)), "unwatched": .bool(true)])
        default:
            fatalError("not a versions operation: \(operation.name)")
        }
    }

    private func locate(_ path: String) throws -> ItemLocation {
        try ItemLocation.resolve(path, registry: context.registry, peer: peer)
    }

    /// The item's etag now, or null when nothing is there (a lock may be taken to create it).
    private func currentETag(_ location: ItemLocation) -> JSONValue {
        guard case .success(let status?) = FileStatus.of(location.name, in: location.directory) else { return .null }
        return .string(status.etag.rawValue)
    }
}
