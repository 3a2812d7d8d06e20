import Foundation
public import UbiquityKit
import Glibc

/// File mode storage: one file `Documents/Item_<UUID>` per item, whose content is the name in UTF-8.
///
/// Writes are atomic (a hidden temporary file in `Documents/`, fsynced, renamed over the item),
/// so the daemon and other readers see the old name or the new one, never a half-written file,
/// and the directory is fsynced after the rename, so an acknowledged save survives a power loss;
/// a rename of an existing item reaches watchers as one `changed`. Reads are bounded: at most
/// ``GroceryLimits/maxNameBytes`` + 1 bytes of any file, whoever wrote it.
public struct GroceryItemFiles: Sendable {
    /// The container's `Documents/` directory.
    public let documents: String

    public init(documents: String) { self.documents = documents }

    public func path(of id: GroceryItemID) -> String { documents + "/" + id.fileName }

    // MARK: Reading

    /// The item a query result stands for, with its name read from the file; nil when the result
    /// is not an item (another name, a directory, a symbolic link) or the file is gone (deleted
    /// between the query and the read: not an error).
    ///
    /// - Throws: ``GroceryError/io(path:operation:message:)`` when the file exists but cannot be read.
    public func item(for result: MetadataItem) throws -> GroceryItem? {
        guard let id = GroceryItemID(fileName: result.name) else { return nil }
        guard let (name, truncated) = try readName(at: result.path) else { return nil }
        return GroceryItem(id: id, name: name, created: result.creationDate ?? result.modificationDate,
                           modified: result.modificationDate, isTruncated: truncated,
                           inConflict: result.value(forAttribute: "hasUnresolvedConflicts") == .bool(true))
    }

    /// The items among query results, in the results' order; see ``item(for:)``. The files are
    /// read by four threads at once: with 10,000 items, reading them one after another was most
    /// of `grocery list`'s time, mostly waiting for the disk when their pages had left the cache.
    public func items(for results: [MetadataItem]) throws -> [GroceryItem] {
        try ThreadedMap.map(results, threads: 4, minimumPerThread: 256) { try item(for: $0) }
    }

    /// The name stored in an item file: nil when the file does not exist or is not a regular file.
    /// A file longer than the limit yields its first ``GroceryLimits/maxNameBytes`` bytes and `true`.
    public func readName(at path: String) throws -> (name: String, truncated: Bool)? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            // Gone, or a symbolic link / directory where an item should be: not an item.
            if [ENOENT, ENOTDIR, ELOOP].contains(errno) { return nil }
            throw PackageFileSystem.error("open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw PackageFileSystem.error("stat", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { return nil }
        // One byte more than allowed tells a full-length name from a longer file.
        let bytes = try PackageFileSystem.read(fd, atMost: GroceryLimits.maxNameBytes + 1, path: path)
        let count = bytes.count
        let truncated = count > GroceryLimits.maxNameBytes
        var kept = bytes[..<min(count, GroceryLimits.maxNameBytes)]
        // Cut at a character boundary: drop a multi-byte sequence the limit split.
        if truncated {
            var lead = kept.endIndex - 1
            while lead > kept.startIndex, kept[lead] & 0xC0 == 0x80 { lead -= 1 }
            let length = kept[lead] >= 0xF0 ? 4 : kept[lead] >= 0xE0 ? 3 : kept[lead] >= 0xC0 ? 2 : 1
            if kept.endIndex - lead < length { kept = kept[..<lead] }
        }
        return (String(decoding: kept, as: UTF8.self), truncated)
    }

    // MARK: Writing

    /// Creates a new item file holding `name`.
    /// - Throws: ``GroceryError/nameTooLong(bytes:limit:)`` (nothing written), or an I/O error.
    public func add(name: String, id: GroceryItemID = GroceryItemID()) throws -> GroceryItemID {
        try write(try GroceryName.validated(name), to: path(of: id))
        return id
    }

    /// Replaces an item's name by rewriting its file atomically.
    /// - Throws: ``GroceryError/unknownItem(prefix:)`` when the item file is gone, ``GroceryError/nameTooLong(bytes:limit:)``.
    public func rename(_ id: GroceryItemID, to name: String) throws {
        let bytes = try GroceryName.validated(name)
        guard try readName(at: path(of: id)) != nil else { throw GroceryError.unknownItem(prefix: id.uuidString) }
        try write(bytes, to: path(of: id))
    }

    /// Deletes an item file.
    /// - Throws: ``GroceryError/unknownItem(prefix:)`` when it is already gone.
    public func delete(_ id: GroceryItemID) throws {
        guard unlink(path(of: id)) == 0 else {
            if errno == ENOENT { throw GroceryError.unknownItem(prefix: id.uuidString) }
            throw PackageFileSystem.error("delete", path(of: id))
        }
        try PackageFileSystem.syncDirectory(documents)
    }

    /// Writes `bytes` to a hidden temporary file beside `target` (fsynced) and renames it over
    /// `target`. The temporary name never matches `Item_*`, so queries do not see it.
    private func write(_ bytes: [UInt8], to target: String) throws {
        let temporary = documents + "/.grocery-" + UUID().uuidString + ".tmp"
        do {
            try PackageFileSystem.writeNewFile(temporary, Data(bytes))
            try PackageFileSystem.rename(temporary, target)
        } catch {
            unlink(temporary)
            throw error
        }
        // Only now is the rename itself durable: without this an acknowledged add can vanish
        // with a power loss.
        try PackageFileSystem.syncDirectory(documents)
    }
}

extension PackageFileSystem {
    /// Reads from `fd` until end of file or `limit` bytes, whichever comes first: a file that is
    /// larger (or grows meanwhile) is never read whole.
    static func read(_ fd: Int32, atMost limit: Int, path: String) throws -> Data {
        var data = Data(count: limit)
        var count = 0
        while count < limit {
            let n = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, limit - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw error("read", path)
            }
            if n == 0 { break }
            count += n
        }
        return data.prefix(count)
    }
}
