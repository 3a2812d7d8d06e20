import Glibc
import UbiquityIndex
import UbiquitySystem
import UbiquityProtocol
import UbiquityJSON

/// An item's versions, read from the file system when asked: the item itself, and the conflict
/// copies beside it (for a package, also those inside it). The index only counts copies to answer
/// `hasUnresolvedConflicts`; what a client acts on is always read fresh here — metadata only: the
/// client reads and resolves versions itself, with its own rights (docs/versions.md).
///
/// Only what the peer could list itself is listed (``PeerAccess``). Bounded: at most ``ItemVersions/maxListed`` others are listed (the oldest; `truncated` says so),
/// and a package walk visits at most ``maxVisited`` entries, ``DirectoryEntries/maxDepth`` deep.
enum VersionCatalog {
    /// The most entries one listing looks at inside a package, in all its directories.
    static let maxVisited = 100_000
    /// The most bytes of versions one answer carries (the protocol's default line limit).
    static let maxAnswerBytes = ServerLimits().maxLineBytes

    /// The versions of the item at `location`, others oldest first, as `peer` may see them: the
    /// copies beside the item only when it may list the item's directory (else `item.forbidden`),
    /// those inside a package only from directories it may list and enter.
    static func versions(of location: ItemLocation, for peer: PeerCredentials) throws -> ItemVersions {
        guard let status = try FileStatus.of(location.name, in: location.directory).get() else {
            throw VersionError(.notFound, "no item at '\(location.path)'", details: ["path": .string(location.path)])
        }
        let directoryPath = PathBytes.directory(of: location.path)
        var current = ItemVersion(id: ItemVersion.currentID, path: location.path, replaces: location.name,
                                  modified: status.modified, size: status.size, device: nil, conflict: false,
                                  isDirectory: status.isDirectory, etag: status.etag)
        guard PeerAccess.allows([.read], at: location.directory, peer: peer) else {
            throw VersionError(.forbidden, "uid \(peer.uid) may not list the directory holding '\(location.path)', where its versions are",
                               details: ["path": .string(location.path)])
        }
        var others: [ItemVersion] = []
        for name in DirectoryEntries.textNames(in: location.directory) {
            // The original's bytes: a copy of the item's canonically equal sibling is not its version.
            guard let copy = ConflictCopyName.parse(name), ExactName.sameBytes(copy.original, location.name),
                  let found = try? FileStatus.of(name, in: location.directory).get() else { continue }
            others.append(version(id: name, directoryPath: directoryPath, replaces: location.name, copy: copy, status: found))
        }
        if status.isDirectory && location.isPackage {
            let package = openat(location.directory, location.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if package >= 0 {
                defer { close(package) }
                var walk = PackageWalk(directoryPath: directoryPath, peer: peer)
                current.size = walk.insideCopies(of: package, prefix: location.name, depth: 0)
                others += walk.others
            }
        }
        others.sort { ($0.modified, $0.id) < ($1.modified, $1.id) }
        // At most maxListed, and an answer no longer than a request may be (paths can be 4 KiB).
        var kept = 0, bytes = JSONLine.encodeLine(current.json).count
        for version in others.prefix(ItemVersions.maxListed) {
            bytes += JSONLine.encodeLine(version.json).count
            guard bytes <= maxAnswerBytes else { break }
            kept += 1
        }
        let truncated = kept < others.count
        if truncated { others.removeLast(others.count - kept) }
        return ItemVersions(item: location.path, container: location.container.descriptor.id.rawValue,
                            root: location.container.descriptor.root, current: current, others: others, truncated: truncated)
    }

    /// A walk through a package: the conflict copies inside it, and the size of what is not a copy.
    private struct PackageWalk {
        let directoryPath: String
        let peer: PeerCredentials
        var others: [ItemVersion] = []
        var visited = 0

        /// Appends the copies inside `directory` and returns the size of its files that are not
        /// copies (saturating). Stops looking once ``maxVisited`` entries were seen.
        mutating func insideCopies(of directory: Int32, prefix: String, depth: Int) -> Int64 {
            var size: Int64 = 0
            // What the peer could not list itself is not listed for it.
            guard PeerAccess.allows([.read, .search], at: directory, peer: peer) else { return size }
            for name in DirectoryEntries.textNames(in: directory) where !SyncEngineFiles.isOwn(name) {
                visited += 1
                guard visited <= VersionCatalog.maxVisited else { break }
                guard let status = try? FileStatus.of(name, in: directory).get() else { continue }
                if let copy = ConflictCopyName.parse(name) {
                    others.append(VersionCatalog.version(id: prefix + "/" + name, directoryPath: directoryPath,
                                                         replaces: prefix + "/" + copy.original, copy: copy, status: status))
                } else if status.isDirectory, depth < DirectoryEntries.maxDepth {
                    let inner = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    guard inner >= 0 else { continue }
                    size = size.saturatingAdding(insideCopies(of: inner, prefix: prefix + "/" + name, depth: depth + 1))
                    close(inner)
                } else if status.isRegularFile {
                    size = size.saturatingAdding(status.size)
                }
            }
            return size
        }
    }

    private static func version(id: String, directoryPath: String, replaces: String, copy: ConflictCopyName,
                                status: FileStatus) -> ItemVersion {
        ItemVersion(id: id, path: directoryPath + "/" + id, replaces: replaces, modified: status.modified, size: status.size,
                    device: copy.device, conflict: true, isDirectory: status.isDirectory, etag: status.etag)
    }
}
