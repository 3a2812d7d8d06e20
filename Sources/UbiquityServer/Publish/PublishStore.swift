import Glibc
import Logging
import NIOCore
import NIOPosix
import Synchronization
import UbiquityJSON
import UbiquitySystem

/// The published snapshots on disk: `publish/` in the daemon's state directory holds one file per
/// snapshot (`snapshot-<32 hex digits>`, mode 0600) and `index.json`, the catalog of the complete
/// ones, rewritten with the door's durable replace after every change, so snapshots survive a
/// restart until they expire. Files not in the index (a crash between a copy and its index write)
/// and expired snapshots are removed when the store opens.
///
/// The catalog (``PublishCatalog``) is kept in memory under a lock; lookups by the HTTP listener
/// only read it. Everything that waits for the disk is `noasync` and runs on NIO's thread pool.
final class PublishStore: Sendable {
    let settings: PublishSettings
    /// The daemon's state directory, which holds `publish/`.
    let stateDirectory: String
    /// `<state directory>/publish`.
    let path: String
    private let logger: Logger
    private let catalog = Mutex(PublishCatalog())
    /// The directory, once opened.
    private let directory = Mutex<Directory?>(nil)
    /// Serialises index writes: each writes the catalog as it is when its turn comes.
    private let writing = Mutex(())
    /// The listener's `host:port` once it is bound (or why it could not bind).
    private let bound: EventLoopPromise<String>
    /// Whether ``bound`` is completed (a promise must be, before it is released).
    private let settled = Mutex(false)

    static let indexName = "index.json"

    init(stateDirectory: String, settings: PublishSettings, logger: Logger) {
        self.settings = settings
        self.stateDirectory = stateDirectory
        self.path = stateDirectory + "/publish"
        self.logger = logger
        bound = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: String.self)
    }

    /// Seconds since 1970 (CLOCK_REALTIME): expiries are wall-clock dates.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    // MARK: - The listener's address

    func listenerBound(authority: String) {
        if settled.withLock({ done in defer { done = true }; return !done }) { bound.succeed(authority) }
    }

    func listenerFailed(_ error: any Error) {
        if settled.withLock({ done in defer { done = true }; return !done }) { bound.fail(error) }
    }

    /// A daemon that never ran its listener still completes the promise.
    deinit { listenerFailed(PublishError(.disabled, "the publish listener never started")) }

    /// `http://HOST:PORT`, once the listener is bound.
    func baseURL() async throws -> String { "http://" + (try await bound.futureResult.get()) }

    // MARK: - Opening

    /// Makes `publish/` (mode 0700) in the state directory, reads the index, removes expired
    /// snapshots and stray files, and saves the index again.
    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool")
    func open() throws(PublishError) {
        let state: Directory
        switch DurableFiles.openStateDirectory(stateDirectory) {
        case .success(let value): state = value
        case .failure(let problem): throw PublishError(.fileSystem, problem.message)
        }
        let folder: Directory
        do {
            _ = try state.makeDirectory("publish", mode: 0o700)
            folder = try state.openDirectory("publish")
        } catch {
            throw PublishError(.fileSystem, "cannot open \(path): \(error.message)")
        }
        var loaded = PublishCatalog()
        switch DurableFiles.read(Self.indexName, in: folder, limit: PublishSettings.maxIndexBytes) {
        case .success(let bytes)?:
            if let json = try? JSONLine.parse(bytes), let saved = PublishCatalog(indexJSON: json) {
                loaded = saved
            } else {
                logger.warning("the publish index is damaged; its snapshots are removed", metadata: ["path": "\(path)/\(Self.indexName)"])
            }
        case .failure(let problem)?:
            logger.warning("the publish index cannot be read; its snapshots are removed", metadata: ["problem": "\(problem.message)"])
        case nil:
            break
        }
        let expired = loaded.removeExpired(now: Self.now())
        let keep = loaded.fileNames
        for name in folder.textNames() where name != Self.indexName && !keep.contains(name) { try? folder.remove(name) }
        catalog.withLock { $0 = loaded }
        directory.withLock { $0 = folder }
        try saveIndex()
        if !expired.isEmpty { logger.info("expired snapshots removed", metadata: ["count": "\(expired.count)"]) }
    }

    // MARK: - Publishing

    /// Copies the regular file open at `source` (its size `size`, its path `path`) as a snapshot of
    /// `uid`'s until `expires`, within the bounds; returns it.
    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool")
    func publish(copying source: Int32, size: Int64, path: String, uid: UInt32, expires: Double) throws(PublishError) -> PublishedSnapshot {
        guard let folder = directory.withLock({ $0 }) else { throw PublishError(.fileSystem, "the publish directory is not open yet") }
        var generator = SystemRandomNumberGenerator()
        let snapshot = PublishedSnapshot(token: PublishToken.make(using: &generator), file: PublishToken.makeFileName(using: &generator),
                                         uid: uid, path: path, size: size, expires: expires)
        let reserved = catalog.withLock { catalog in
            _ = catalog.removeExpired(now: Self.now())
            return catalog.reserve(snapshot, settings: settings)
        }
        if case .failure(let refusal) = reserved { throw refusal }
        let copied: Int?
        do {
            copied = try folder.createNew(Array(snapshot.file.utf8), copying: source, limit: Int(snapshot.size))
        } catch {
            catalog.withLock { _ = $0.remove(snapshot.token) }
            throw PublishError(.fileSystem, "cannot copy '\(path)': \(error.message)", details: ["path": .string(path)])
        }
        guard let copied else {
            catalog.withLock { _ = $0.remove(snapshot.token) }
            throw PublishError(.fileSystem, "'\(path)' grew while it was being copied; publish it again when it is saved",
                               details: ["path": .string(path)])
        }
        catalog.withLock { $0.complete(snapshot.token, size: Int64(copied)) }
        do {
            try saveIndex()
        } catch {
            catalog.withLock { _ = $0.remove(snapshot.token) }
            try? folder.remove(snapshot.file)
            throw error
        }
        var done = snapshot
        done.size = Int64(copied)
        return done
    }

    /// Revokes `uid`'s `token`: its file is removed and the index saved.
    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool")
    func revoke(_ token: String, uid: UInt32) throws(PublishError) {
        guard let snapshot = catalog.withLock({ $0.revoke(token, uid: uid) }) else {
            throw PublishError(.unknownToken, "uid \(uid) has published nothing with this token (never published, revoked, expired, or another user's)",
                               details: ["token": .string(token)])
        }
        try discard([snapshot])
    }

    /// `uid`'s unexpired snapshots, soonest expiry first.
    func published(by uid: UInt32) -> [PublishedSnapshot] {
        catalog.withLock { $0.owned(by: uid, now: Self.now()) }
    }

    // MARK: - Serving and expiry

    /// What a GET of `token` finds now; an expired snapshot is taken out of the catalog at once
    /// (its file is removed by ``discard(_:)``, which the caller schedules on the thread pool).
    func lookup(_ token: String) -> PublishCatalog.Lookup {
        catalog.withLock { catalog in
            let found = catalog.lookup(token, now: Self.now())
            if case .expired = found { catalog.remove(token) }
            return found
        }
    }

    /// The snapshot file's path, for the listener to open.
    func filePath(of snapshot: PublishedSnapshot) -> String { path + "/" + snapshot.file }

    /// Removes every expired snapshot (the listener's timer).
    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool")
    func sweep() throws(PublishError) {
        let expired = catalog.withLock { $0.removeExpired(now: Self.now()) }
        if !expired.isEmpty { try discard(expired) }
    }

    /// Removes the files of snapshots already out of the catalog, and saves the index.
    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool")
    func discard(_ snapshots: [PublishedSnapshot]) throws(PublishError) {
        guard let folder = directory.withLock({ $0 }) else { return }
        for snapshot in snapshots { try? folder.remove(snapshot.file) }
        try saveIndex()
    }

    @available(*, noasync, message: "waits for the disk: run it on an NIOThreadPool")
    private func saveIndex() throws(PublishError) {
        guard let folder = directory.withLock({ $0 }) else { return }
        let failure: String? = writing.withLock { _ -> String? in
            let bytes = JSONLine.encodeLine(catalog.withLock { $0.indexJSON })
            do throws(SystemCallError) { try folder.replace(Self.indexName, with: bytes, mode: 0o600) } catch { return error.message }
            return nil
        }
        if let failure { throw PublishError(.fileSystem, "cannot save the publish index: \(failure)") }
    }
}
