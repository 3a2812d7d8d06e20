import Glibc
import NIOPosix
import UbiquityIndex
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol
import UbiquitySystem

/// What `item.evict` and `item.download` share (each is answered in its file in `Handlers/`):
/// the item is found and judged for the peer first, so a path error or a missing right reads the
/// same whether or not a sync engine is configured; then the engine is asked (docs/architecture.md,
/// "Files on demand"). Without an engine both end in `sync.noEngine`, naming the container.
extension Session {
    /// An item found on disk for files on demand: as itself, or as its placeholder (evicted).
    struct FoundItem: Sendable {
        var path: String
        var container: ContainerID
        /// Below the container's root, as the index and the engine name them.
        var components: [String]
        var relative: String { components.joined(separator: "/") }
        var evictedOnDisk: Bool
        var isRegular: Bool
        /// Its file's size and modification time (nanoseconds since 1970), as `fstatat` read them.
        var size: Int64
        var modified: Int64
    }

    /// Evicts the local copy (``ItemEvict``): refused unless a connected device holds the current
    /// version, as the index's sync facts say and then as the engine says of this exact file
    /// (``heldElsewhere(_:_:ownDevice:)``); then the item's exact ignore line, a scan of its path (awaited:
    /// Syncthing must record the item as ignored before its file goes), and its placeholder. A
    /// failure after the line was written takes it back (``ignoreLineTakenBack(after:_:_:_:)``).
    func evict(_ path: String) async throws -> ItemSyncState {
        let found = try await locate(path, needing: .write)
        guard let link = context.syncEngineLink else { throw Self.noEngine(found, doing: "evicting a local copy") }
        let folder = try Self.sharedFolder(of: found, link)
        let known = await context.engine.syncStanding(of: found.container, found.components)
        if found.evictedOnDisk || known?.evicted == true {
            // Evicted already; a crash may have left the placeholder full: empty it again.
            let registry = context.registry, peer = self.peer
            _ = try? await NIOThreadPool.singleton.runIfActive {
                let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
                let directory = Directory(borrowing: location.directory, path: PathBytes.directory(of: location.path))
                return PlaceholderFile.name(for: location.relative.name).map { PlaceholderFile.hollow($0, in: directory) }
            }
            return ItemSyncState(path: found.path, downloadingStatus: DownloadingStatus.notDownloaded.rawValue,
                                 isDownloading: known?.values.isDownloading ?? false)
        }
        guard let standing = known else {
            throw SyncError(.notHeldElsewhere, "'\(found.path)' is not indexed yet: no device is known to hold it",
                            details: ["path": .string(found.path)])
        }
        guard found.isRegular, !standing.isDirectory, !standing.isPackage else {
            throw SyncError(.notAFile, "'\(found.path)' is a folder or a package: only files are evicted", details: ["path": .string(found.path)])
        }
        guard standing.values.downloadingStatus == .current, !standing.connectedHolders.isEmpty else {
            let why = standing.values.downloadingStatus == nil ? "the sync engine's facts are not known now"
                : standing.values.downloadingStatus != .current ? "this copy is not the current version"
                : (standing.values.currentVersionDevices ?? []).isEmpty ? "no other device holds its current version yet"
                : "the devices that hold its current version (\((standing.values.currentVersionDevices ?? []).joined(separator: ", "))) are not connected"
            throw SyncError(.notHeldElsewhere, "evicting '\(found.path)' is refused: \(why); the only copy stays here",
                            details: ["path": .string(found.path), "container": .string(found.container.rawValue)])
        }
        let engine = try await SyncthingFolderRequests.open(link, folder: folder)
        try await Self.heldElsewhere(found, engine, ownDevice: link.monitor.status.device)
        // Set once the write is asked: from then on Syncthing may have the line, whatever the answer.
        var writing = false
        do {
            try await link.ignoreLines.changing(folder) {
                let lines = SyncthingIgnorePatterns.evicting(found.relative, in: try await engine.ignores())
                writing = true
                try await engine.writeIgnores(lines)
            }
            // The scan reads the lines from the file first, so it records the item as ignored.
            try await engine.scan(found.relative)
        } catch var failure as SyncError {
            // A read that failed before the write left nothing to take back; reading again could
            // only fail too, and then claim Syncthing may ignore the item.
            guard writing else {
                failure.message += Self.lineNotWritten
                throw failure
            }
            throw await Self.ignoreLineTakenBack(after: failure, link, engine, found)
        }
        let registry = context.registry, peer = self.peer, judged = (size: found.size, modified: found.modified)
        let outcome = try await NIOThreadPool.singleton.runIfActive {
            let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
            let directory = Directory(borrowing: location.directory, path: PathBytes.directory(of: location.path))
            return PlaceholderFile.evict(location.relative.name, in: directory, judged: judged)
        }
        switch outcome {
        case .changed:
            throw await Self.ignoreLineTakenBack(
                after: SyncError(.notHeldElsewhere, "evicting '\(found.path)' is refused: it changed while it was being evicted, "
                                 + "and its new content is known only here; it stays here whole",
                                 details: ["path": .string(found.path), "container": .string(found.container.rawValue)]),
                link, engine, found)
        case .evicted, .missing:
            context.logger.info("evicted a local copy", metadata: ["path": "\(found.path)", "container": "\(found.container)"])
            return ItemSyncState(path: found.path, downloadingStatus: DownloadingStatus.notDownloaded.rawValue, isDownloading: false)
        case .failed(let why):
            // The engine ignores the item now, but it is still here.
            throw await Self.ignoreLineTakenBack(
                after: SyncError(.engineUnavailable, "evicting '\(found.path)' failed after the engine was told to leave it: \(why)",
                                 details: ["path": .string(found.path)]), link, engine, found)
        }
    }

    /// Starts downloading an evicted item (``ItemDownload``): its exact ignore line removed (which
    /// makes Syncthing scan the folder) and a priority pull; the answer never waits for a pull in
    /// progress (``SyncthingFolderRequests/writeIgnores(_:)``). An item that is here already: its
    /// state, and a priority pull when a newer version is elsewhere (`force` asks nothing more:
    /// Syncthing has no way to fetch again a copy that is current).
    func download(_ path: String, force: Bool) async throws -> ItemSyncState {
        let found = try await locate(path, needing: .read)
        guard let link = context.syncEngineLink else {
            throw Self.noEngine(found, doing: force ? "forcing a download" : "downloading")
        }
        let folder = try Self.sharedFolder(of: found, link)
        let standing = await context.engine.syncStanding(of: found.container, found.components)
        let engine = try await SyncthingFolderRequests.open(link, folder: folder)
        if found.evictedOnDisk || standing?.evicted == true {
            // No line to remove: asked before, or removed by hand; Syncthing reads them at every scan.
            _ = try await Self.removeIgnoreLine(of: found, link, engine)
            try? await engine.bringToFront(found.relative)
            context.logger.info("downloading an evicted item", metadata: ["path": "\(found.path)", "container": "\(found.container)"])
            return ItemSyncState(path: found.path, downloadingStatus: DownloadingStatus.notDownloaded.rawValue, isDownloading: true)
        }
        let status = standing?.values.downloadingStatus
        if status == .downloaded { try? await engine.bringToFront(found.relative) }
        return ItemSyncState(path: found.path, downloadingStatus: (status ?? .current).rawValue,
                             isDownloading: standing?.values.isDownloading ?? false)
    }

    /// Refuses the eviction unless the engine, asked about this exact file now, records this copy
    /// as the current version and a connected device holds that version
    /// (``SyncthingFileRecord/whyNotHeldElsewhere(_:size:modified:ownDevice:)``). The facts alone
    /// cannot tell: a file the engine never indexed — ignored by the folder's patterns, or a name
    /// it does not sync — is in no need list, and would count as held by every device. An engine
    /// that does not answer refuses too.
    private static func heldElsewhere(_ found: FoundItem, _ engine: SyncthingFolderRequests, ownDevice: String?) async throws {
        let record: SyncthingFileRecord?
        do {
            record = try await engine.file(found.relative)
        } catch var failure as SyncError {
            failure.message += "; evicting '\(found.path)' is refused: the only copy may be here, and it stays"
            failure.details["path"] = .string(found.path)
            throw failure
        }
        let why = record.map { $0.whyNotHeldElsewhere(found.relative, size: found.size, modified: found.modified, ownDevice: ownDevice) }
            ?? "the sync engine has no record of it (its ignore patterns leave it out, or it does not sync this name)"
        guard let why else { return }
        throw SyncError(.notHeldElsewhere, "evicting '\(found.path)' is refused: \(why); the only copy stays here",
                        details: ["path": .string(found.path), "container": .string(found.container.rawValue)])
    }

    /// An eviction that failed after its ignore line may have been written (the write or the
    /// scan refused or not answered in time — a pull in progress holds the folder — or the
    /// placeholder not made): the item would stay here ignored, and edits of it would never
    /// reach the other devices. Its exact line is taken out of the lines as they are now (other
    /// evictions' and downloads' changes since stay; so does the line that ignores placeholders,
    /// which names only this device's own files); the error says what became of it.
    private static func ignoreLineTakenBack(after failure: SyncError, _ link: SyncEngineLink,
                                            _ engine: SyncthingFolderRequests, _ found: FoundItem) async -> SyncError {
        var answer = failure
        do {
            let wasWritten = try await removeIgnoreLine(of: found, link, engine)
            answer.message += wasWritten ? "; its ignore line was taken back" : Self.lineNotWritten
        } catch {
            answer.message += "; taking its ignore line back failed too (\(error)): Syncthing may ignore '\(found.path)' "
                + "until it is downloaded again (which takes the line back)"
        }
        return answer
    }

    /// What an eviction's refusal adds when Syncthing never had the item's ignore line.
    private static let lineNotWritten = "; its ignore line was not written: nothing changed"

    /// Takes the item's exact line out of its folder's ignore lines as they are now (other lines,
    /// the placeholders' among them, stay), one change of the folder's lines at a time; false
    /// when the line was not there, and nothing was written.
    private static func removeIgnoreLine(of found: FoundItem, _ link: SyncEngineLink,
                                         _ engine: SyncthingFolderRequests) async throws -> Bool {
        try await link.ignoreLines.changing(engine.folder) {
            let now = try await engine.ignores()
            let without = SyncthingIgnorePatterns.downloading(found.relative, in: now)
            guard without != now else { return false }
            try await engine.writeIgnores(without)
            return true
        }
    }

    /// Finds the item (or its placeholder) and judges the peer's `right` on it. Path walks and
    /// permission reads wait on the disk: on a thread of NIO's pool.
    private func locate(_ path: String, needing right: PeerAccess.Right) async throws -> FoundItem {
        let registry = context.registry, peer = self.peer
        return try await NIOThreadPool.singleton.runIfActive {
            let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
            if EvictedPlaceholderName.item(ofPlaceholder: location.name) != nil {
                throw VersionError(.invalidPath, "'\(location.path)' is an evicted item's placeholder, not an item; name the item",
                                   details: ["path": .string(location.path)])
            }
            var status = stat()
            var evicted = false
            var at = location.relative
            if Beneath.withCString(location.relative.name, { fstatat(location.directory, $0, &status, AT_SYMLINK_NOFOLLOW) }) != 0 {
                guard let placeholder = PlaceholderFile.name(for: location.relative.name),
                      Beneath.withCString(placeholder, { fstatat(location.directory, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0,
                      status.st_mode & S_IFMT == S_IFREG,
                      let placeholderPath = try? RelativePath(location.relative.components.dropLast().flatMap { $0 + [UInt8(ascii: "/")] } + placeholder)
                else {
                    throw VersionError(.notFound, "no item at '\(location.path)'", details: ["path": .string(location.path)])
                }
                evicted = true
                at = placeholderPath
            } else if status.st_mode & S_IFMT == S_IFLNK {
                throw VersionError(.forbidden, "'\(location.path)' is a symbolic link (links are never followed)",
                                   details: ["path": .string(location.path)])
            }
            if case .failure(let denial) = PeerAccess.check(right, at, beneath: location.root.fd, peer: peer) {
                guard !denial.isNotFound else {
                    throw VersionError(.notFound, "no item at '\(location.path)'", details: ["path": .string(location.path)])
                }
                var error = denial.versionError
                error.details["path"] = .string(location.path)
                throw error
            }
            return FoundItem(path: location.path, container: location.container.descriptor.id,
                             components: location.relative.components.map { String(decoding: $0, as: UTF8.self) },
                             evictedOnDisk: evicted, isRegular: status.st_mode & S_IFMT == S_IFREG, size: Int64(status.st_size),
                             modified: Int64(status.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_mtim.tv_nsec))
        }
    }

    private static func noEngine(_ found: FoundItem, doing action: String) -> SyncError {
        let container = found.container.rawValue
        return SyncError(.noEngine,
                         "no sync engine is configured for container '\(container)': \(action) needs another device that holds the item, so a single machine refuses it",
                         details: ["path": .string(found.path), "container": .string(container)])
    }

    /// The engine's folder for the item's container, while the engine is connected.
    private static func sharedFolder(of found: FoundItem, _ link: SyncEngineLink) throws -> String {
        let status = link.monitor.status
        guard status.state == .connected else {
            throw SyncError(.engineUnavailable,
                            "the sync engine is \(status.state.rawValue)\(status.reason.map { " (\($0))" } ?? ""): nothing was changed",
                            details: ["path": .string(found.path), "container": .string(found.container.rawValue)])
        }
        guard let folder = status.folders.first(where: { $0.container == found.container.rawValue })?.folder else {
            throw SyncError(.engineUnavailable,
                            "the sync engine shares no folder at container '\(found.container)': nothing was changed",
                            details: ["path": .string(found.path), "container": .string(found.container.rawValue)])
        }
        return folder
    }
}
