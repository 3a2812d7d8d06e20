import Glibc
import UbiquityIndex
import UbiquityProtocol

/// An item's versions, read from the file system when asked: the item itself, and the conflict
/// copies beside it (for a package, also those inside it). The index only counts copies to answer
/// `hasUnresolvedConflicts`; what a client acts on is always read fresh here.
enum VersionCatalog {
    /// The versions of the item at `location`, others oldest first.
    static func versions(of location: ItemLocation) throws -> ItemVersions {
        guard let status = try FileStatus.of(location.name, in: location.directory).get() else {
            throw VersionError(.notFound, "no item at '\(location.path)'", details: ["path": .string(location.path)])
        }
        let directoryPath = String(location.path.dropLast(location.name.utf8.count + 1))
        var current = ItemVersion(id: ItemVersion.currentID, path: location.path, replaces: location.name,
                                  modified: status.modified, size: status.size, device: nil, conflict: false,
                                  isDirectory: status.isDirectory, etag: status.etag)
        var others: [ItemVersion] = []
        for name in DirectoryEntries.names(in: location.directory) {
            guard let copy = ConflictCopyName.parse(name), copy.original == location.name,
                  let found = try? FileStatus.of(name, in: location.directory).get() else { continue }
            others.append(version(id: name, directoryPath: directoryPath, replaces: location.name, copy: copy, status: found))
        }
        if status.isDirectory && location.isPackage {
            let package = DirectoryEntries.open(location.name, in: location.directory)
            if package >= 0 {
                defer { close(package) }
                current.size = insideCopies(of: package, prefix: location.name, directoryPath: directoryPath, into: &others, depth: 0)
            }
        }
        others.sort { ($0.modified, $0.id) < ($1.modified, $1.id) }
        return ItemVersions(item: location.path, container: location.container.descriptor.id.rawValue,
                            root: location.container.descriptor.root, current: current, others: others)
    }

    /// Walks a package: appends the conflict copies inside it and returns the size of the files
    /// that are not copies (the package's size, saturating).
    private static func insideCopies(of directory: Int32, prefix: String, directoryPath: String,
                                     into others: inout [ItemVersion], depth: Int) -> Int64 {
        var size: Int64 = 0
        for name in DirectoryEntries.names(in: directory) where !SyncEngineFiles.isOwn(name) {
            guard let status = try? FileStatus.of(name, in: directory).get() else { continue }
            if let copy = ConflictCopyName.parse(name) {
                others.append(version(id: prefix + "/" + name, directoryPath: directoryPath,
                                      replaces: prefix + "/" + copy.original, copy: copy, status: status))
            } else if status.isDirectory, depth < DirectoryEntries.maxDepth {
                let inner = DirectoryEntries.open(name, in: directory)
                guard inner >= 0 else { continue }
                size = size.saturatingAdding(insideCopies(of: inner, prefix: prefix + "/" + name, directoryPath: directoryPath,
                                                          into: &others, depth: depth + 1))
                close(inner)
            } else if status.isRegularFile {
                size = size.saturatingAdding(status.size)
            }
        }
        return size
    }

    private static func version(id: String, directoryPath: String, replaces: String, copy: ConflictCopyName,
                                status: FileStatus) -> ItemVersion {
        ItemVersion(id: id, path: directoryPath + "/" + id, replaces: replaces, modified: status.modified, size: status.size,
                    device: copy.device, conflict: true, isDirectory: status.isDirectory, etag: status.etag)
    }
}
