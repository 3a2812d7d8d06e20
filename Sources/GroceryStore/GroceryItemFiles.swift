import FoundationEssentials
public import UbiquityKit
import UbiquityPredicate
import Glibc

/// File mode storage: one file `Documents/Item_<UUID>` per item, whose content is the name in UTF-8.
///
/// Writes go through UbiquityKit's ``Document``, as any client should write. A new item is
/// created whole (``Document/create(_:contents:)``: fsynced, linked into place, directory
/// fsynced). A rename is a coordinated save: under the item's lock from the daemon, compared
/// with the version read (its etag), atomic (a hidden temporary file fsynced and renamed over
/// the item, then the directory fsynced), so readers see the old name or the new one, an
/// acknowledged save survives a power loss, two writers never lose each other's save (the later
/// one becomes a conflict version) and the rename reaches watchers as one `changed`. Reads are bounded: at most
/// ``GroceryLimits/maxNameBytes`` + 1 bytes of any file, whoever wrote it.
public struct GroceryItemFiles: Sendable {
    /// The container's `Documents/` directory.
    public let documents: String
    /// `documents` as bytes, compared with each item's path (``open(_:in:)``).
    private let documentsUTF8: [UInt8]

    public init(documents: String) {
        self.documents = documents
        documentsUTF8 = Array(documents.utf8)
    }

    public func path(of id: GroceryItemID) -> String { documents + "/" + id.fileName }

    // MARK: Reading

    /// The item a query result stands for, with its name read from the file; nil when the result
    /// is not an item (another name, a directory, a symbolic link) or the file is gone (deleted
    /// between the query and the read: not an error).
    ///
    /// - Throws: ``GroceryError/io(path:operation:message:)`` when the file exists but cannot be read.
    public func item(for result: MetadataItem) throws -> GroceryItem? {
        try item(for: result, in: -1)
    }

    /// ``item(for:)``, the file opened relative to `directory` (`Documents/`, open) when it is inside.
    private func item(for result: MetadataItem, in directory: Int32) throws -> GroceryItem? {
        guard let id = GroceryItemID(fileName: result.name) else { return nil }
        guard let (name, truncated) = try readName(at: result.path, in: directory) else { return nil }
        let modified = result.modificationDate
        // Looked up by canonical name in the item's own dictionary (a retain, no copy):
        // `value(forAttribute:)` resolves a spelling first, twice the hashing for each of 10,000 items.
        let attributes = result.attributes
        return GroceryItem(id: id, name: name, created: result.creationDate ?? modified,
                           modified: modified, isTruncated: truncated,
                           inConflict: attributes[Self.conflictsKey] == .bool(true),
                           sync: GrocerySyncMark.of(isUploaded: attributes[Self.uploadedKey],
                                                    downloadingStatus: attributes[Self.downloadingKey]))
    }

    private static let conflictsKey = Attribute.hasUnresolvedConflicts.canonicalName
    private static let uploadedKey = Attribute.isUploaded.canonicalName
    private static let downloadingKey = Attribute.downloadingStatus.canonicalName

    /// The items among query results, in the results' order; see ``item(for:)``. The files are
    /// read by four threads at once: with 10,000 items, reading them one after another was most
    /// of `grocery list`'s time, mostly waiting for the disk when their pages had left the cache.
    /// Each file is opened relative to `Documents/`, so the kernel walks the container's path once.
    public func items(for results: [MetadataItem]) throws -> [GroceryItem] {
        let directory = Glibc.open(documents, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        // Not openable: every file by its full path, whose open then reports what is wrong.
        defer { if directory >= 0 { close(directory) } }
        return try ThreadedMap.map(results, threads: 4, minimumPerThread: 256) { try item(for: $0, in: directory) }
    }

    /// The name stored in an item file: nil when the file does not exist or is not a regular file.
    /// A file longer than the limit yields its first ``GroceryLimits/maxNameBytes`` bytes and `true`.
    public func readName(at path: String) throws -> (name: String, truncated: Bool)? {
        try readName(at: path, in: -1)
    }

    private func readName(at path: String, in directory: Int32) throws -> (name: String, truncated: Bool)? {
        let fd = open(path, in: directory)
        if fd < 0 {
            // Gone, or a symbolic link / directory where an item should be: not an item.
            if [ENOENT, ENOTDIR, ELOOP].contains(errno) { return nil }
            throw PackageFileSystem.error("open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw PackageFileSystem.error("stat", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { return nil }
        // One byte more than allowed tells a full-length name from a longer file. On the stack:
        // a buffer from the heap per file cost more than the read.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: GroceryLimits.maxNameBytes + 1) { buffer in
            // Reading stops at the size fstat gave: one read per file instead of a second for the end.
            let count = try PackageFileSystem.read(fd, into: buffer, path: path, expecting: Int(clamping: info.st_size))
            let truncated = count > GroceryLimits.maxNameBytes
            return (Self.name(UnsafeBufferPointer(buffer)[..<min(count, GroceryLimits.maxNameBytes)], truncated: truncated), truncated)
        }
    }

    /// An item's name from the first bytes of its file: `truncated` ones are cut at a character
    /// boundary (a multi-byte sequence the limit split is dropped).
    static func name<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, truncated: Bool) -> String where Bytes.Index == Int {
        var kept = bytes[...]
        if truncated, let last = kept.indices.last {
            var lead = last
            while lead > kept.startIndex, kept[lead] & 0xC0 == 0x80 { lead -= 1 }
            let length = kept[lead] >= 0xF0 ? 4 : kept[lead] >= 0xE0 ? 3 : kept[lead] >= 0xC0 ? 2 : 1
            if kept.endIndex - lead < length { kept = kept[..<lead] }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// The name in one version of an item (read by this process below the container's root, no
    /// link followed, etag-checked: ``FileVersion/prefix(_:)``); nil when the version is not a file.
    static func name(of version: FileVersion) throws -> String? {
        do {
            let (data, truncated) = try version.prefix(GroceryLimits.maxNameBytes)
            return name(Array(data), truncated: truncated)
        } catch UbiquityKitError.versionNotAFile {
            return nil
        }
    }

    /// Opens an item file for reading (never following a symbolic link): relative to `directory`
    /// when that is open and the path lies below `Documents/`, else by the full path.
    private func open(_ path: String, in directory: Int32) -> Int32 {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        let prefix = documentsUTF8.count
        let count = path.utf8.count
        // One memcmp on the C string: `starts(with:)` on the two UTF-8 views went byte by byte
        // through the generic path, a tenth of the CPU the read of a small file costs.
        return path.withCString { cPath in
            guard directory >= 0, count > prefix + 1, cPath[prefix] == CChar(UInt8(ascii: "/")),
                  memcmp(cPath, documentsUTF8, prefix) == 0
            else { return Glibc.open(cPath, flags) }
            return Glibc.openat(directory, cPath + prefix + 1, flags)
        }
    }

    // MARK: Writing

    /// Creates a new item file holding `name` (``Document/create(_:contents:)``: a new id, so
    /// there is no lock to take and nothing to replace).
    /// - Throws: ``GroceryError/nameTooLong(bytes:limit:)`` (nothing written), or what the create threw.
    public func add(name: String, id: GroceryItemID = GroceryItemID()) async throws -> GroceryItemID {
        try await Document.create(path(of: id), contents: Data(try GroceryName.validated(name)))
        return id
    }

    /// Replaces an item's name. When someone else changed the item after this read it, the new
    /// name is kept as a conflict version beside it (``Document/SaveOutcome/savedAsConflictVersion(path:)``)
    /// rather than overwriting their change.
    /// - Throws: ``GroceryError/unknownItem(prefix:)`` when the item file is gone, ``GroceryError/nameTooLong(bytes:limit:)``.
    @discardableResult
    public func rename(_ id: GroceryItemID, to name: String, connection: UbiquityConnection) async throws -> Document.SaveOutcome {
        let bytes = try GroceryName.validated(name)
        // Bounded, and a link or a directory where the item should be is no item.
        guard try readName(at: path(of: id)) != nil else { throw GroceryError.unknownItem(prefix: id.uuidString) }
        return try await save(bytes, as: id, connection: connection)
    }

    /// Deletes an item file everywhere, as every client should (``Document/delete(lockTimeout:)``):
    /// under the item's coordinated lock, so a save in progress on this machine finishes first.
    /// - Throws: ``GroceryError/unknownItem(prefix:)`` when it is already gone.
    public func delete(_ id: GroceryItemID, connection: UbiquityConnection) async throws {
        // Bounded, and a link or a directory where the item should be is no item.
        guard try readName(at: path(of: id)) != nil else { throw GroceryError.unknownItem(prefix: id.uuidString) }
        let document = try await Document.open(path(of: id), connection: connection)
        try await document.delete()
    }

    /// Saves `bytes` as the item's file: ``Document/read()`` records the version there (none for
    /// a new item), ``Document/save(_:policy:lockTimeout:)`` writes under the lock. Its temporary
    /// name never matches `Item_*`, so queries do not see it.
    private func save(_ bytes: [UInt8], as id: GroceryItemID, connection: UbiquityConnection) async throws -> Document.SaveOutcome {
        let document = try await Document.open(path(of: id), connection: connection)
        do {
            _ = try document.read()
            let outcome = try await document.save(Data(bytes))
            await document.close()
            return outcome
        } catch {
            await document.close()
            throw error
        }
    }
}

extension PackageFileSystem {
    /// Reads from `fd` into `buffer` until end of file or the buffer is full, whichever comes
    /// first: a file that is larger (or grows meanwhile) is never read whole. Returns the count.
    /// With `expecting` (the size fstat gave), stops once that many bytes are read.
    static func read(_ fd: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, path: String,
                     expecting size: Int? = nil) throws -> Int {
        var count = 0
        while count < buffer.count, count < size ?? Int.max, let base = buffer.baseAddress {
            let n = Glibc.read(fd, base + count, buffer.count - count)
            if n < 0 {
                if errno == EINTR { continue }
                throw error("read", path)
            }
            if n == 0 { break }
            count += n
        }
        return count
    }

    /// ``read(_:into:path:)`` into new `Data` of at most `limit` bytes.
    static func read(_ fd: Int32, atMost limit: Int, path: String) throws -> Data {
        var data = Data(count: limit)
        let count = try data.withUnsafeMutableBytes { try read(fd, into: $0.bindMemory(to: UInt8.self), path: path) }
        return data.prefix(count)
    }
}
