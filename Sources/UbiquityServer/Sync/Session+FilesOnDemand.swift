import Glibc
import NIOPosix
import UbiquityProtocol
import UbiquitySystem

/// What `item.evict` and `item.download` share (each is answered in its file in `Handlers/`):
/// the item is found and judged for the peer first, so a path error or a missing right reads the
/// same whether or not a sync engine is configured; then the engine is asked. No engine is
/// connected in this version, so both end in `sync.noEngine`, naming the container.
extension Session {
    func refuseWithoutEngine(_ path: String, needing right: PeerAccess.Right, doing action: String) async throws -> Never {
        let registry = context.registry, peer = self.peer
        // Path walks and permission reads wait on the disk: on a thread of NIO's pool.
        let (container, itemPath) = try await NIOThreadPool.singleton.runIfActive {
            let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
            try Self.requireItem(location)
            try Self.require(right, location, peer: peer)
            return (location.container.descriptor.id.rawValue, location.path)
        }
        throw SyncError(.noEngine,
                        "no sync engine is configured for container '\(container)': \(action) needs another device that holds the item, so a single machine refuses it",
                        details: ["path": .string(itemPath), "container": .string(container)])
    }

    /// The item must be there and not a link (links are never followed, nor evicted in their
    /// target's place).
    private static func requireItem(_ location: ItemLocation) throws {
        var status = stat()
        let found = Beneath.withCString(location.relative.name) { fstatat(location.directory, $0, &status, AT_SYMLINK_NOFOLLOW) }
        guard found == 0 else {
            throw VersionError(.notFound, "no item at '\(location.path)'", details: ["path": .string(location.path)])
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            throw VersionError(.forbidden, "'\(location.path)' is a symbolic link (links are never followed)",
                               details: ["path": .string(location.path)])
        }
    }
}
