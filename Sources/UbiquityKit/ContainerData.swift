import Glibc
import NIOPosix
import Synchronization
import UbiquitySystem

/// A container's **data scope** as one unit: everything in it outside `Documents/` that the
/// daemon counts as items (what `storage` sums as `data`) — iCloud's Manage Storage deletes an
/// app's data this way, while documents go one by one.
public enum ContainerData {
    /// Removes every item of the data scope of `container` (nil: the first container this user may
    /// read), on every device: a sync engine removes them elsewhere. With the caller's own rights:
    /// the daemon names what the data scope holds (a query of it), and each top-level entry is
    /// removed with everything inside, the container's directory then `fsync`ed. What the daemon
    /// and a sync engine keep for themselves there (`.ubiquity-kv`, `.ubiquity-stores`, `.stfolder`,
    /// `.stignore`, …) is never an item, so it stays: the key-value store and relational stores
    /// are cleared through their own operations.
    ///
    /// - Returns: The top-level paths removed, sorted (empty when the data scope was empty).
    /// - Throws: ``UbiquityKitError/documentFile(path:reason:)`` when the kernel refuses a removal
    ///   (what it said; the entries before it are gone), ``ProtocolError`` for an unknown or
    ///   forbidden container, or a connection error.
    @discardableResult
    public static func delete(container: String?, connection: UbiquityConnection) async throws -> [String] {
        let location = try await connection.containerURL(container)
        // A predicate that names isHidden asks for hidden items too (`.cache/`, `.settings`).
        let query = MetadataQuery(connection: connection, predicateFormat: "isHidden == YES OR isHidden == NO")
        query.containers = [location.container]
        query.searchScopes = .data
        query.isLive = false
        let root = location.path
        // The names' bytes: two canonically equal names (`café` in both forms) are two entries.
        let names = Mutex<Set<[UInt8]>>([])
        _ = try await query.gather { batch in
            let found = batch.compactMap { item in
                PathBytes.relative(Array(item.path.utf8), below: Array(root.utf8))
                    .flatMap { $0.split(separator: PathBytes.separator, omittingEmptySubsequences: false).first }
                    .map { Array($0) }
            }
            names.withLock { $0.formUnion(found.filter { $0 != Array("Documents".utf8) && !$0.isEmpty }) }
        }
        let entries = names.withLock { $0 }.sorted { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) }
        guard !entries.isEmpty else { return [] }
        // The index may still name an entry removed a moment ago: only what is there is removed and said.
        let removed = try await NIOThreadPool.singleton.runIfActive { () throws -> [String] in
            do throws(SystemCallError) {
                let folder = try Directory.open(root, followingLink: true)
                var removed: [String] = []
                for name in entries where try folder.status(of: Array(name.utf8)) != nil {
                    try folder.removeTree(Array(name.utf8))
                    removed.append(name)
                }
                try folder.sync()
                return removed
            } catch {
                throw UbiquityKitError.documentFile(path: error.path ?? root, reason: "cannot remove it: \(error)")
            }
        }
        return removed.map { (root.hasSuffix("/") ? root : root + "/") + $0 }
    }
}
