import FoundationEssentials
import Glibc
import NIOPosix
import UbiquitySystem
import UbiquityProtocol

/// Saving a package: a directory of files that the daemon reports as one item (docs/versions.md,
/// "Saving a package").
extension Document {
    /// How many times a save starts over when a writer that does not take the lock (a sync
    /// engine bringing another device's save) changed the package between reading and committing.
    static let packageRounds = 3

    /// Changes the package at ``path`` in one coordinated save: under the item's lock from the
    /// daemon, it reads the package's commit file (and lists the directories in `listing`), lets
    /// `change` decide what to write from that, and writes it — the new files, then the commit
    /// file with the door's durable replace (the commit point), then the removals.
    ///
    /// Because `change` runs under the lock on what the package holds then, two coordinated
    /// writers never lose each other's change: the second one's `change` sees the first one's
    /// save. A writer that does not take the lock (a sync engine) is detected by the commit file's
    /// etag, compared again just before the commit: when it changed, the new files are removed
    /// and `change` runs again on what is there now, up to three times. A package's version is
    /// its commit file's etag (``etag`` after the save): every save replaces that file, so its
    /// inode is new each time, where the directory keeps its own.
    ///
    /// The file work runs on NIO's thread pool, never on the caller's task; `change` runs on the
    /// caller's task and should only compute.
    ///
    /// ```swift
    /// let document = try await Document.open(documents + "/list.pkg", connection: connection)
    /// try await document.updatePackage(commitFile: "index.json", limit: 1 << 20) { update in
    ///     var names = try update.current.map { try JSONDecoder().decode([String].self, from: $0) } ?? []
    ///     names.append("bread")
    ///     update.commit = try JSONEncoder().encode(names)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - commitFile: The name, directly inside the package, of the file that says what the
    ///     package holds; readers read it first.
    ///   - limit: The most bytes of the commit file that are read; a larger one is refused.
    ///   - listing: Directories inside the package (`"images"`) whose names ``PackageUpdate/listing``
    ///     should hold, so that `change` can name the files nothing refers to any more.
    ///   - lockTimeout: How long to wait for another process's save to end.
    ///   - change: Fills in ``PackageUpdate/commit`` (nil: nothing is written) and the files.
    /// - Returns: What `change` returned the last time it ran.
    /// - Throws: What `change` throws (nothing is written then);
    ///   ``UbiquityKitError/documentBusy(path:seconds:)`` when the lock stayed taken;
    ///   ``UbiquityKitError/documentFile(path:reason:)`` when something else than a directory is at
    ///   ``path``, the commit file is not a regular file or is over `limit`, a path is not inside the
    ///   package, a step fails (the package then still holds the previous version), or the package
    ///   changed under every round.
    @discardableResult
    public func updatePackage<T>(commitFile: String, limit: Int, listing: [String] = [], lockTimeout: Duration = .seconds(30),
                                 _ change: (inout PackageUpdate) throws -> T) async throws -> T {
        guard try packageComponents(commitFile).count == 1 else {
            throw UbiquityKitError.documentFile(path: path, reason: "the commit file '\(commitFile)' must be directly inside the package")
        }
        for directory in listing { _ = try packageComponents(directory) }
        let attempt = try nextSave()
        await DocumentTurns.shared.take(path, on: connection)
        defer { DocumentTurns.shared.give(path, on: connection) }
        let (lock, _) = try await takeLock(timeout: lockTimeout)
        var writing = false
        do {
            for _ in 0..<Self.packageRounds {
                let read = try await readPackage(commitFile: commitFile, limit: limit, listing: listing)
                var update = PackageUpdate(exists: read.exists, current: read.data, listing: read.listing)
                let result = try change(&update)
                guard let commit = update.commit else {
                    try await connection.send(DocumentUnlock(lock: lock))
                    return result
                }
                let plan = try self.plan(update, commit: commit, commitFile: commitFile)
                writing = true
                if case .committed(let etag) = try await writePackage(plan, over: read, attempt: attempt) {
                    try await connection.send(DocumentUnlock(lock: lock))
                    noteSaved(etag)
                    // A package this save created is watched from now on.
                    if !read.exists { _ = try? await watchIfUnwatched() }
                    return result
                }
                writing = false
            }
            throw UbiquityKitError.documentFile(path: path, reason: "it changed \(Self.packageRounds) times while being saved, each time "
                                                + "by a program that does not take its lock (a sync engine?); nothing was saved: try again")
        } catch {
            _ = try? await connection.send(DocumentUnlock(lock: lock))
            if writing { noteSaveFailed() }
            throw error
        }
    }

    // MARK: - Reading

    /// What the package held under the lock: its directory (nil when nothing is there), the
    /// commit file and its etag, the listings.
    struct PackageRead: Sendable {
        var parent: Directory
        var package: Directory?
        /// `st_dev` and `st_ino` of the package's directory: whether the name still names it.
        var identity: [UInt64]
        var data: Data?
        var etag: ItemETag?
        var listing: [String: [String]]

        var exists: Bool { package != nil }
    }

    private func readPackage(commitFile: String, limit: Int, listing: [String]) async throws -> PackageRead {
        let (directory, name, path) = (self.directory, lastComponent, self.path)
        return try await NIOThreadPool.singleton.runIfActive {
            do {
                let parent = try Directory.open(directory, followingLink: true)
                let package: Directory
                do throws(SystemCallError) {
                    package = try parent.openDirectory(name)
                } catch where error.errno == ENOENT {
                    return PackageRead(parent: parent, package: nil, identity: [], listing: Dictionary(listing.map { ($0, []) }) { a, _ in a })
                } catch where error.isLinkOrNotDirectory {
                    throw UbiquityKitError.documentFile(path: path, reason: "it is not a directory (a package is one; a symbolic link or a file is there)")
                } catch {
                    throw error
                }
                var read = PackageRead(parent: parent, package: package, identity: try Self.identity(of: package), listing: [:])
                if let (data, etag) = try Self.readFile(commitFile, in: package, limit: limit) { (read.data, read.etag) = (data, etag) }
                for relative in listing {
                    read.listing[relative] = try Self.directory(relative, in: package)?.names()
                        .compactMap { String(validating: $0, as: UTF8.self) } ?? []
                }
                return read
            } catch {
                throw Self.failure(error, path: path)
            }
        }
    }

    /// The commit file's bytes and the etag of the very inode they were read from; nil when it is missing.
    private static func readFile(_ name: String, in package: Directory, limit: Int) throws -> (Data, ItemETag)? {
        let file = package.path(of: name)
        let fd: Int32
        do throws(SystemCallError) {
            // Never through a link; O_NONBLOCK so that a FIFO planted there cannot block the open.
            fd = try System.call("openat", path: file) {
                Beneath.withCString(Array(name.utf8)) { openat(package.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
            }
        } catch where error.errno == ENOENT {
            return nil
        } catch where error.errno == ELOOP {
            throw UbiquityKitError.documentFile(path: file, reason: "it is a symbolic link, not a file")
        } catch {
            throw error
        }
        defer { Glibc.close(fd) }
        var info = stat()
        try System.call("fstat", path: file) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw UbiquityKitError.documentFile(path: file, reason: "it is not a regular file") }
        let tooLarge = { (size: Int) in UbiquityKitError.documentFile(path: file, reason: "it has \(size) bytes, more than the limit of \(limit)") }
        if Int(clamping: info.st_size) > limit { throw tooLarge(Int(clamping: info.st_size)) }
        let bytes = try Directory.readAll(fd, limit: limit, sizeHint: Int(clamping: info.st_size), path: file)
        if bytes.count > limit { throw tooLarge(bytes.count) }
        return (Data(bytes), ItemETag(of: info))
    }

    // MARK: - Writing

    /// How a round of writing ended.
    enum PackageWrite: Sendable {
        /// The commit file is in place; its etag.
        case committed(ItemETag?)
        /// A writer that ignores the lock changed the package first: nothing of this round is left.
        case changedMeanwhile
    }

    private func writePackage(_ plan: PackagePlan, over read: PackageRead, attempt: Int) async throws -> PackageWrite {
        let (name, path) = (lastComponent, self.path)
        let temporary = CoordinatedSave.temporaryName(pid: getpid(), attempt: attempt)
        return try await NIOThreadPool.singleton.runIfActive {
            do {
                guard let package = read.package else { return try Self.create(plan, named: name, in: read.parent, staging: temporary) }
                let created = try Self.write(plan.newFiles, into: package)
                // Still the package read, its commit file still the version read? Else someone who does not take the lock saved.
                let now = try read.parent.status(of: Array(name.utf8))
                guard let now, [UInt64(now.st_dev), UInt64(now.st_ino)] == read.identity,
                      try package.status(of: Array(plan.commitFile.utf8)).map(ItemETag.init(of:)) == read.etag else {
                    Self.remove(created)
                    return .changedMeanwhile
                }
                // The name carries this process's id and a number used once: one there is a leftover of an earlier process.
                try? package.remove(temporary)
                do throws(SystemCallError) {
                    try plan.commit.withUnsafeBytes { bytes in
                        Result { () throws(SystemCallError) in try package.replace(plan.commitFile, with: bytes, temporary: temporary) }
                    }.get()
                } catch {
                    Self.remove(created)
                    throw error
                }
                Self.removeAfterCommit(plan.removedFiles, in: package)
                return .committed(try package.status(of: Array(plan.commitFile.utf8)).map(ItemETag.init(of:)))
            } catch {
                throw Self.failure(error, path: path)
            }
        }
    }

    /// A new package: built whole under the hidden name `staging` beside it, `fsync`ed, renamed
    /// into place — refused when anything but an empty directory is there by then (someone who
    /// does not take the lock made one: the caller reads again) — and the parent `fsync`ed.
    @available(*, noasync, message: "it waits for the disk")
    private static func create(_ plan: PackagePlan, named name: String, in parent: Directory, staging: String) throws(SystemCallError) -> PackageWrite {
        try? parent.removeTree(staging)
        guard try parent.makeDirectory(staging, mode: 0o755) else { throw SystemCallError("mkdirat", errno: EEXIST, path: parent.path(of: staging)) }
        do {
            let package = try parent.openDirectory(staging)
            _ = try write(plan.newFiles, into: package)
            try plan.commit.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in try package.createFile(plan.commitFile, with: bytes) }
            }.get()
            try package.sync()
            let refused = try parent.rename(Array(staging.utf8), to: Array(name.utf8), in: parent, tolerating: [EEXIST, ENOTEMPTY, ENOTDIR, EISDIR])
            if refused != 0 {
                try? parent.removeTree(staging)
                return .changedMeanwhile
            }
        } catch {
            try? parent.removeTree(staging)
            throw error
        }
        try parent.sync()
        let package = try parent.openDirectory(name)
        return .committed(try package.status(of: Array(plan.commitFile.utf8)).map(ItemETag.init(of:)))
    }

    /// Creates each new file (exclusively, never through a link), making missing directories on
    /// the way, and `fsync`s every directory that changed. What it created, for removing again.
    @available(*, noasync, message: "it waits for the disk")
    private static func write(_ files: [(components: [String], data: Data)], into package: Directory) throws(SystemCallError) -> [(Directory, String)] {
        var directories: [[String]: Directory] = [[]: package]
        var changed: [Directory] = []
        var created: [(Directory, String)] = []
        do {
            for (components, data) in files {
                var folder = package
                for depth in 1..<components.count {
                    let key = Array(components[..<depth])
                    if let known = directories[key] { folder = known; continue }
                    if try folder.makeDirectory(components[depth - 1]) { changed.append(folder) }
                    folder = try folder.openDirectory(components[depth - 1])
                    directories[key] = folder
                }
                let name = components[components.count - 1]
                try data.withUnsafeBytes { bytes in
                    Result { () throws(SystemCallError) in try folder.createFile(name, with: bytes) }
                }.get()
                created.append((folder, name))
                if !changed.contains(where: { $0 === folder }) { changed.append(folder) }
            }
            for folder in changed { try folder.sync() }
        } catch {
            remove(created)
            throw error
        }
        return created
    }

    /// Removes files this save created (a round that does not commit leaves nothing behind).
    private static func remove(_ created: [(Directory, String)]) {
        for (folder, name) in created { try? folder.remove(name) }
    }

    /// After the commit: the files nothing refers to any more, and `.ubiquity-save-*` files a
    /// crashed save left in the package (under the lock, no save of it is under way). Failing
    /// here is no failure of the save: the new version is in place, and the next save tries again.
    @available(*, noasync, message: "it waits for the disk")
    private static func removeAfterCommit(_ files: [[String]], in package: Directory) {
        var changed: [Directory] = []
        for components in files {
            guard let folder = try? directory(components.dropLast(), in: package) else { continue }
            guard (try? folder.remove(components[components.count - 1])) != nil else { continue }
            if !changed.contains(where: { $0 === folder }) { changed.append(folder) }
        }
        for name in package.textNames() where name.hasPrefix(".ubiquity-save-") {
            if (try? package.remove(name)) != nil, !changed.contains(where: { $0 === package }) { changed.append(package) }
        }
        for folder in changed { try? folder.sync() }
    }

    // MARK: - Paths inside the package

    /// The directory at `components` below `package`, each level opened without following a link;
    /// nil when one is missing. A link or a file on the way is an error (`ELOOP`, `ENOTDIR`).
    private static func directory(_ components: some Collection<String>, in package: Directory) throws(SystemCallError) -> Directory? {
        var folder = package
        for component in components {
            do throws(SystemCallError) {
                folder = try folder.openDirectory(component)
            } catch where error.errno == ENOENT {
                return nil
            } catch {
                throw error
            }
        }
        return folder
    }

    private static func directory(_ relative: String, in package: Directory) throws(SystemCallError) -> Directory? {
        try directory(PathBytes.components(of: relative), in: package)
    }

    /// A path inside the package split on the byte `/`; refused when empty, absolute, or with an
    /// empty, `.` or `..` component (it could leave the package).
    func packageComponents(_ relative: String) throws -> [String] {
        let parts = PathBytes.split(relative.utf8)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != [0x2E] && $0 != [0x2E, 0x2E] && !$0.contains(0) && $0.count <= RelativePath.maxComponentBytes }) else {
            throw UbiquityKitError.documentFile(path: path, reason: "'\(relative)' is not a path inside the package (an empty, '.' or '..' component, or absolute)")
        }
        return parts.map { String(decoding: $0, as: UTF8.self) }
    }

    /// A door's error as the document's.
    private static func failure(_ error: any Error, path: String) -> any Error {
        guard let error = error as? SystemCallError else { return error }
        if error.isLinkOrNotDirectory, error.call == "openat" {
            return UbiquityKitError.documentFile(path: error.path ?? path, reason: "it is not a directory (a symbolic link or a file is there): nothing is written through it")
        }
        return UbiquityKitError.documentFile(path: path, reason: "cannot save it: \(error)")
    }

    private static func identity(of directory: Directory) throws(SystemCallError) -> [UInt64] {
        var info = stat()
        try System.call("fstat", path: directory.path) { fstat(directory.fd, &info) }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
}
