import CUbiquitySystem
import FoundationEssentials
import Glibc
import UbiquitySystem
import UbiquityProtocol

/// Reading and resolving versions with the caller's own rights (docs/versions.md): every step is
/// relative to the container root held open, every path below it opened through ``Beneath`` (no
/// symbolic link is ever followed), and every version checked against the etag it was listed with
/// just before it is read, moved or removed. The kernel applies the files' own permissions.
enum VersionFiles {
    /// The container root, opened by its path (`O_PATH | O_DIRECTORY | O_NOFOLLOW`: its own parents
    /// are the administrator's); everything else is opened below it.
    final class Root: Sendable {
        let fd: Int32
        let path: String

        init(_ path: String) throws(UbiquityKitError) {
            let fd = Glibc.open(path, UBQ_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw .versionFile(path: path, reason: "cannot open the container root: \(errorText(errno))") }
            self.fd = fd
            self.path = path
        }

        deinit { close(fd) }

        /// `path` as a path below the root, compared byte by byte.
        func relative(_ path: String) throws(UbiquityKitError) -> RelativePath {
            guard let below = PathBytes.relative(path.utf8, below: self.path.utf8) else {
                throw .versionFile(path: path, reason: "is not below the container root \(self.path)")
            }
            do {
                return try RelativePath(below)
            } catch {
                throw .versionFile(path: path, reason: "\(error)")
            }
        }

        /// Opens `path` below the root with `flags` (never following a link).
        func open(_ path: String, flags: Int32) throws(UbiquityKitError) -> Int32 {
            switch Beneath.open(try relative(path), in: fd, flags: flags) {
            case .success(let opened): return opened
            case .failure(let error): throw .versionFile(path: path, reason: "cannot open it: \(error)")
            }
        }

        /// Opens the directory holding `path`'s entry, and gives that entry's name; nil when a
        /// directory on the way is not there.
        func entry(_ path: String) throws(UbiquityKitError) -> Entry? {
            let relative = try relative(path)
            switch Beneath.openParent(of: relative, in: fd) {
            case .success(let directory):
                return Entry(directory: Directory(adopting: directory, path: PathBytes.directory(of: path)), name: relative.name, path: path)
            case .failure(let error) where error.errno == ENOENT: return nil
            case .failure(let error):
                throw .versionFile(path: PathBytes.directory(of: path), reason: "cannot open the directory: \(error)")
            }
        }
    }

    /// One name in a directory held open (`O_RDONLY | O_DIRECTORY`, for `*at` calls and `fsync`).
    final class Entry {
        let directory: Directory
        let name: [UInt8]
        /// The absolute path, for messages.
        let path: String

        init(directory: Directory, name: [UInt8], path: String) {
            self.directory = directory
            self.name = name
            self.path = path
        }

        /// `fstatat` without following a link; nil when nothing is there.
        func status(of name: [UInt8]? = nil) throws(UbiquityKitError) -> stat? {
            do {
                return try directory.status(of: name ?? self.name)
            } catch {
                throw .versionFile(path: path, reason: "cannot examine it: \(error.message)")
            }
        }

        /// Flushes the directory's entries (a rename or removal in it) to disk; a failure here
        /// leaves the change made, only not yet durable, so it is not reported.
        @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
        func sync() { try? directory.sync() }
    }

    /// The etag of what `info` describes (docs/versions.md#etags).
    static func etag(_ info: stat) -> ItemETag {
        ItemETag(inode: UInt64(info.st_ino), modifiedSeconds: Int64(info.st_mtim.tv_sec),
                 modifiedNanoseconds: Int64(info.st_mtim.tv_nsec), size: Int64(info.st_size))
    }

    static func isRegularFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    // MARK: - Reading

    /// At most `limit` bytes of the regular file `path` below `root`, which must still have `etag`
    /// (from `fstat` of the descriptor read through). A longer file is refused, or with
    /// `truncating` cut at `limit` (`truncated` then says more followed).
    static func read(_ path: String, id: String, item: String, root: String, etag: ItemETag, limit: Int,
                     truncating: Bool = false) throws(UbiquityKitError) -> (data: Data, truncated: Bool) {
        let root = try Root(root)
        // O_NONBLOCK: a FIFO put where a version was must not hang the reader; O_NOCTTY: nor a terminal adopt it.
        let fd = try root.open(path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .versionFile(path: path, reason: "cannot examine it: \(errorText(errno))") }
        guard isRegularFile(info) else { throw .versionNotAFile(path: path, id: id) }
        guard Self.etag(info) == etag else { throw .versionStale(item: item, id: id) }
        return try readAll(fd, path: path, id: id, size: info.st_size, limit: limit, truncating: truncating)
    }

    /// At most `limit` bytes of the regular file `relative` inside the directory version `path`
    /// below `root`; the directory must still have `etag`, and nothing on the way is a link.
    static func read(_ relative: String, inside path: String, id: String, item: String, root: String, etag: ItemETag,
                     limit: Int) throws(UbiquityKitError) -> Data {
        let root = try Root(root)
        let directory = try root.open(path, flags: O_RDONLY | O_DIRECTORY)
        defer { close(directory) }
        var info = stat()
        guard fstat(directory, &info) == 0 else { throw .versionFile(path: path, reason: "cannot examine it: \(errorText(errno))") }
        guard Self.etag(info) == etag else { throw .versionStale(item: item, id: id) }
        let inner: RelativePath
        do { inner = try RelativePath(relative) } catch { throw .versionFile(path: path + "/" + relative, reason: "\(error)") }
        let fd: Int32
        switch Beneath.open(inner, in: directory, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY) {
        case .success(let opened): fd = opened
        case .failure(let error): throw .versionFile(path: path + "/" + relative, reason: "cannot open it: \(error)")
        }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else { throw .versionFile(path: path + "/" + relative, reason: "cannot examine it: \(errorText(errno))") }
        guard isRegularFile(info) else { throw .versionNotAFile(path: path + "/" + relative, id: id) }
        return try readAll(fd, path: path + "/" + relative, id: id, size: info.st_size, limit: limit, truncating: false).data
    }

    /// Reads `fd` to its end, at most `limit` bytes (`size` from `fstat` refuses a larger file
    /// before reading, unless `truncating`).
    private static func readAll(_ fd: Int32, path: String, id: String, size: off_t, limit: Int,
                                truncating: Bool) throws(UbiquityKitError) -> (data: Data, truncated: Bool) {
        guard truncating || Int64(size) <= Int64(limit) else { throw .versionTooLarge(id: id, limit: limit) }
        let bytes: [UInt8]
        do {
            bytes = try Directory.readAll(fd, limit: limit, sizeHint: min(Int(clamping: size), limit), path: path)
        } catch {
            throw .versionFile(path: path, reason: "cannot read it: \(error.message)")
        }
        guard bytes.count > limit else { return (Data(bytes), false) }
        // Grown since fstat (an append in place), or longer than asked for.
        guard truncating else { throw .versionTooLarge(id: id, limit: limit) }
        return (Data(bytes[..<limit]), true)
    }

    // MARK: - Resolving

    /// Puts `version` (a conflict version, as listed just now) in place of what it replaces: a file
    /// is renamed over it; a directory, or anything over a directory, trades places with it in one
    /// `renameat2(RENAME_EXCHANGE)` and the replaced one is removed after. `listed` is the etag the
    /// caller chose it by; nothing is touched when the entry does not have it now. Waits for the
    /// disk (a removal, `fsync`): ``FileVersion`` runs it on NIO's thread pool.
    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool or a thread of its own")
    static func putInPlace(_ version: ItemVersion, item: String, root: Root, listed: ItemETag) throws(UbiquityKitError) {
        guard let entry = try root.entry(version.path) else { throw .versionStale(item: item, id: version.id) }
        // What it replaces is beside it (a copy inside a package lives beside the file it is a version of).
        let itemPath = try root.relative(item)
        let replaces: RelativePath
        do { replaces = try RelativePath(version.replaces) } catch {
            throw .versionFile(path: version.path, reason: "replaces '\(version.replaces)', which \(error)")
        }
        let target = try root.relative(version.path)
        guard Array(itemPath.parentComponents) + Array(replaces.parentComponents) == Array(target.parentComponents) else {
            throw .versionFile(path: version.path, reason: "is not beside '\(version.replaces)', which it replaces")
        }
        guard let info = try entry.status(), etag(info) == listed else { throw .versionStale(item: item, id: version.id) }
        guard isRegularFile(info) || isDirectory(info) else { throw .versionNotAFile(path: version.path, id: version.id) }
        let replacedPath = PathBytes.directory(of: version.path) + "/" + replaces.nameText
        let replaced = try entry.status(of: replaces.name)
        if let replaced, isDirectory(replaced) || isDirectory(info) {
            do {
                try entry.directory.exchange(entry.name, with: replaces.name)
            } catch {
                throw .versionFile(path: version.path, reason: "cannot exchange it with \(replacedPath): \(error.message)")
            }
            // The replaced version now has the copy's name; the item's path never showed a partial one.
            do {
                try entry.directory.removeTree(entry.name)
            } catch {
                entry.sync()
                throw .versionFile(path: version.path, reason: "is in place, but the version it replaced (now under this name) could not be removed: \(error.message)")
            }
        } else {
            do {
                try entry.directory.rename(entry.name, to: replaces.name)
            } catch {
                throw .versionFile(path: version.path, reason: "cannot rename it to \(replacedPath): \(error.message)")
            }
        }
        entry.sync()
    }

    /// Removes `version` (as listed just now) unless it changed since: true when removed or already
    /// gone, false when it changed and was left. Waits for the disk, as ``putInPlace(_:item:root:listed:)``.
    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool or a thread of its own")
    static func remove(_ version: ItemVersion, root: Root) throws(UbiquityKitError) -> Bool {
        guard let entry = try root.entry(version.path), let info = try entry.status() else { return true }
        guard etag(info) == version.etag else { return false }
        do {
            try entry.directory.removeTree(entry.name)
        } catch {
            throw .versionFile(path: version.path, reason: "cannot remove it: \(error.message)")
        }
        entry.sync()
        return true
    }

    /// The item's etag now (it may be missing: the caller removed it).
    static func etag(ofItem item: String, root: Root) throws(UbiquityKitError) -> ItemETag? {
        try root.entry(item)?.status().map(etag)
    }
}
