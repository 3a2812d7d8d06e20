public import FoundationEssentials
import Glibc
import NIOPosix
import Synchronization
import UbiquitySystem
public import UbiquityProtocol

/// A document that two processes can save without one silently losing the other's save, shaped
/// like `UIDocument`: ``read()`` records the version read (its etag); ``save(_:policy:lockTimeout:)``
/// takes the item's coordinated-write lock from the daemon, compares, and either writes (a temporary
/// file renamed over the item) or — when someone else saved since — keeps the new bytes as a conflict
/// version beside the item. ``states()`` reports ``DocumentState`` as the daemon's events arrive.
/// The protocol it follows is in docs/versions.md, so clients in other languages can take part.
///
/// ```swift
/// let document = try await Document.open(path, connection: connection)
/// var text = String(decoding: try document.read(), as: UTF8.self)
/// text += "\nbread"
/// switch try await document.save(Data(text.utf8)) {
/// case .saved: break
/// case .savedAsConflictVersion(let copy): print("someone saved first; yours is kept as \(copy)")
/// }
/// ```
public final class Document: Sendable {
    /// What a save does when the item changed since it was read.
    public enum SavePolicy: Sendable, Hashable {
        /// Keep the new bytes as a conflict version; the item keeps the other save.
        case detectConflicts
        /// Overwrite whatever is there ("latest wins").
        case latestWins
    }

    public enum SaveOutcome: Sendable, Hashable {
        /// The item now holds the saved bytes.
        case saved(ItemETag)
        /// The item had changed: the bytes are a conflict version at this path.
        case savedAsConflictVersion(path: String)
    }

    /// The wire code of a lock held by another connection.
    static let lockedCode = "document.locked"
    /// The wire code of a path where nothing is.
    static let notFoundCode = "item.notFound"
    /// How often a save asks again for the lock of an item that another process is creating:
    /// no unlock event can come for it, as nothing is there to watch yet.
    static let creationPoll: Duration = .milliseconds(20)

    public let path: String
    public let connection: UbiquityConnection

    private struct State {
        var etag: ItemETag?
        var lockedByOther = false
        var inConflict = false
        var savingError = false
        var closed = false
        var watch: Int?
        var observers: [Int: AsyncStream<DocumentState>.Continuation] = [:]
        var nextObserver = 0
        var unlockWaiters: [Int: AsyncStream<Void>.Continuation] = [:]

        var flags: DocumentState {
            var flags = DocumentState.normal
            if closed { flags.insert(.closed) }
            if inConflict { flags.insert(.inConflict) }
            if savingError { flags.insert(.savingError) }
            if lockedByOther { flags.insert(.editingDisabled) }
            return flags
        }
    }

    private let state = Mutex(State())
    private let conflicts: MetadataQuery

    private init(path: String, connection: UbiquityConnection) {
        self.path = path
        self.connection = connection
        conflicts = MetadataQuery(connection: connection, predicateFormat: "kMDItemPath == %@", arguments: [.string(path)])
        conflicts.attributes = ["hasUnresolvedConflicts"]
        conflicts.notificationBatchingInterval = 0
    }

    /// Opens the document at `path` (an absolute path inside a container): watches its lock and
    /// its conflicts, and returns once its state is known. The file need not exist yet: the
    /// daemon watches the lock of an item only once it exists, so a new document's lock is
    /// watched from its first save on.
    public static func open(_ path: String, connection: UbiquityConnection) async throws -> Document {
        let document = Document(path: path, connection: connection)
        _ = try await document.watchIfUnwatched()
        let notifications = try await document.conflicts.start()
        var iterator = notifications.makeAsyncIterator()
        while let notification = try await iterator.next() {
            document.noteConflicts()
            if case .didFinishGathering = notification { break }
        }
        Task { [weak document] in
            do {
                while let _ = try await iterator.next() { document?.noteConflicts() }
            } catch {
                document?.markClosed()
            }
        }
        return document
    }

    /// The document's state now.
    public var documentState: DocumentState { state.withLock { $0.flags } }

    /// The etag of the version last read or saved here; nil before ``read()`` of a new document.
    public var etag: ItemETag? { state.withLock { $0.etag } }

    /// The states, the current one first, then each change.
    public func states() -> AsyncStream<DocumentState> {
        let (stream, continuation) = AsyncStream.makeStream(of: DocumentState.self, bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            continuation.yield(state.flags)
            if state.closed { continuation.finish() }
            return id
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.observers.removeValue(forKey: id) } }
        return stream
    }

    /// The most ``read(limit:)`` reads by default: a document is read whole into memory, and a
    /// larger (or sparse) file would ask for more than a client can be sure to have.
    public static let defaultReadLimit = 1 << 30

    /// Reads the whole file and records its etag for the next save. A missing file reads as empty
    /// (a new document).
    ///
    /// - Parameter limit: the largest file read, in bytes; a larger one is refused
    ///   (``UbiquityKitError/documentFile(path:reason:)`` saying its size and the limit), before
    ///   anything is allocated for it.
    public func read(limit: Int = Document.defaultReadLimit) throws -> Data {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { state.withLock { $0.etag = nil }; return Data() }
            throw UbiquityKitError.documentFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw UbiquityKitError.documentFile(path: path, reason: "not a regular file")
        }
        let limit = max(0, limit), size = Int(clamping: info.st_size)
        guard size <= limit else {
            throw UbiquityKitError.documentFile(path: path, reason: "it is \(size) bytes, more than the \(limit) read(limit:) allows")
        }
        let data: Data
        do {
            let bytes = try Directory.readAll(fd, limit: limit, sizeHint: size, path: path)
            // Grown past the limit since its status was read.
            guard bytes.count <= limit else {
                throw UbiquityKitError.documentFile(path: path, reason: "it grew past the \(limit) bytes read(limit:) allows while it was read")
            }
            data = Data(bytes)
        } catch let error as SystemCallError {
            throw UbiquityKitError.documentFile(path: path, reason: error.message)
        }
        let etag = ItemETag(of: info)
        state.withLock { $0.etag = etag }
        return data
    }

    /// Saves `data` under the coordinated-write lock (waiting up to `lockTimeout` for another
    /// process's save to finish). With ``SavePolicy/detectConflicts``, a file that changed since
    /// ``read()`` is left as it is and `data` becomes a conflict version beside it.
    @discardableResult
    public func save(_ data: Data, policy: SavePolicy = .detectConflicts, lockTimeout: Duration = .seconds(30)) async throws -> SaveOutcome {
        let attempt = try nextSave()
        await DocumentTurns.shared.take(path, on: connection)
        defer { DocumentTurns.shared.give(path, on: connection) }
        let (lock, current) = try await takeLock(timeout: lockTimeout)
        do {
            let expected = etag
            let outcome: SaveOutcome
            if policy == .latestWins || current == expected {
                try await write(data, as: lastComponent, attempt: attempt)
                let etag = try await connection.send(DocumentUnlock(lock: lock)).etag
                noteSaved(etag)
                outcome = .saved(etag ?? ItemETag(rawValue: ""))
            } else {
                let name = try conflictVersionName()
                try await write(data, as: name, attempt: attempt)
                try await connection.send(DocumentUnlock(lock: lock))
                changeState { $0.savingError = false; $0.inConflict = true }
                outcome = .savedAsConflictVersion(path: directory + "/" + name)
            }
            return outcome
        } catch {
            _ = try? await connection.send(DocumentUnlock(lock: lock))
            noteSaveFailed()
            throw error
        }
    }

    /// Removes the item everywhere — a file, or a package or folder with everything inside —
    /// under the coordinated-write lock (waiting up to `lockTimeout` for another process's save),
    /// with this process's own rights (the kernel decides: the daemon lends none), never through
    /// a link inside it; the directory is fsynced, so the removal survives a crash. A sync engine
    /// then removes it on every other device (NSFileManager's `removeItemAtURL:` on an item of a
    /// ubiquity container). The document is closed afterwards.
    ///
    /// - Throws: ``UbiquityKitError/documentFile(path:reason:)`` when nothing is there or the
    ///   kernel refuses (what it said), ``UbiquityKitError/documentBusy(path:seconds:)``.
    public func delete(lockTimeout: Duration = .seconds(30)) async throws {
        let (directory, name, path) = (self.directory, lastComponent, self.path)
        try await endingItem(lockTimeout: lockTimeout) {
            do throws(SystemCallError) {
                let folder = try Directory.open(directory, followingLink: true)
                var status = stat()
                guard name.withCString({ fstatat(folder.fd, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0 else {
                    throw SystemCallError("fstatat", errno: errno, path: path)
                }
                try folder.removeTree(name)
                try folder.sync()
            } catch {
                throw UbiquityKitError.documentFile(path: path, reason: error.errno == ENOENT ? "there is no such item" : "cannot remove it: \(error)")
            }
        }
    }

    /// Runs `work` — which takes the item away from the container: a delete, a move out — on
    /// NIO's thread pool under the item's coordinated lock, then unlocks and closes the document,
    /// whether `work` succeeded or not.
    func endingItem<Result: Sendable>(lockTimeout: Duration, _ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        _ = try nextSave()
        await DocumentTurns.shared.take(path, on: connection)
        defer { DocumentTurns.shared.give(path, on: connection) }
        let (lock, _) = try await takeLock(timeout: lockTimeout)
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await NIOThreadPool.singleton.runIfActive(work))
        } catch {
            outcome = .failure(error)
        }
        _ = try? await connection.send(DocumentUnlock(lock: lock))
        await close()
        return try outcome.get()
    }

    /// Stops watching; the state becomes ``DocumentState/closed`` and the state streams end.
    public func close() async {
        let watch = state.withLock { $0.watch }
        if let watch { try? await connection.unwatchDocument(watch) }
        await conflicts.stop()
        markClosed()
    }

    // MARK: - Saving

    /// Split on the byte `/` (a `Character` may hide a separator: UbiquitySystem).
    var directory: String { PathBytes.directory(of: path) }
    var lastComponent: String { PathBytes.lastComponent(of: path) }

    /// The number of a new save (its temporary name's `N`), unique in this process: two documents
    /// saving in one directory at once never share a temporary name. Refused once it is closed.
    func nextSave() throws -> Int {
        try state.withLock { state in
            if state.closed { throw UbiquityKitError.documentClosed(path: path) }
        }
        return saveAttempts.add(1, ordering: .relaxed).newValue
    }

    /// `document.lock`, waiting for an unlock event while another connection holds it.
    func takeLock(timeout: Duration) async throws -> (lock: Int, etag: ItemETag?) {
        let deadline = ContinuousClock.now + timeout
        while true {
            // Registered before asking, so an unlock that comes right after the refusal is not missed.
            let (unlocked, waiter) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let id = state.withLock { state in
                state.nextObserver += 1
                state.unlockWaiters[state.nextObserver] = waiter
                return state.nextObserver
            }
            defer { _ = state.withLock { $0.unlockWaiters.removeValue(forKey: id) } }
            do {
                let locked = try await connection.send(DocumentLock(path: path))
                return (locked.lock, locked.etag)
            } catch let error as ProtocolError where error.code.rawValue == Document.lockedCode {
                let seconds = Int(timeout.components.seconds)
                let watching = try await watchIfUnwatched()
                // Newly watched and free already: the unlock came before the watch, ask again now.
                if case .started(lockedByOther: false) = watching { continue }
                let freed = await withTaskGroup(of: Bool.self) { group in
                    if case .missing = watching {
                        group.addTask { try? await Task.sleep(for: Document.creationPoll); return ContinuousClock.now < deadline }
                    } else {
                        group.addTask { for await _ in unlocked { return true }; return false }
                    }
                    group.addTask { try? await Task.sleep(until: deadline); return false }
                    let first = await group.next() ?? false
                    group.cancelAll()
                    return first
                }
                if !freed { throw UbiquityKitError.documentBusy(path: path, seconds: seconds) }
            }
        }
    }

    /// Whether the item's lock is watched, after ``watchIfUnwatched()``.
    enum Watching {
        case already
        /// Watched from now on; whether another connection holds the lock now.
        case started(lockedByOther: Bool)
        /// Nothing is at the path (yet): the daemon watches only an item that exists.
        case missing
    }

    /// Starts watching the item's lock (`document.watch`) unless it is watched already.
    func watchIfUnwatched() async throws -> Watching {
        if state.withLock({ $0.watch != nil }) { return .already }
        let watched: DocumentWatch.Result
        do {
            watched = try await connection.watchDocument(path) { [weak self] delivery in self?.handle(delivery) }
        } catch let error as ProtocolError where error.code.rawValue == Document.notFoundCode {
            return .missing
        }
        let locked = watched.locked && !watched.yours
        var extra: Int?
        changeState { state in
            // Re-checked: another save of this document may have started a watch meanwhile.
            if state.watch == nil {
                state.watch = watched.watch
                state.lockedByOther = locked
            } else {
                extra = watched.watch
            }
        }
        if let extra { try? await connection.unwatchDocument(extra) }
        return extra == nil ? .started(lockedByOther: locked) : .already
    }

    /// Writes `data` as `name` in the item's directory with the door's durable replace
    /// (``Directory/replace(_:with:mode:temporary:)``: a temporary file of this process's
    /// documented name, written, `fsync`ed, renamed over `name`, the directory `fsync`ed): `name`
    /// holds the old bytes or the new, never a part. It waits for the disk, so it runs on NIO's
    /// thread pool, never on the cooperative pool the caller's tasks share.
    private func write(_ data: Data, as name: String, attempt: Int) async throws {
        let (directory, path) = (self.directory, self.path)
        let temporary = CoordinatedSave.temporaryName(pid: getpid(), attempt: attempt)
        try await NIOThreadPool.singleton.runIfActive {
            do throws(SystemCallError) {
                let folder = try Directory.open(directory, followingLink: true)
                // The name carries this process's id: one there is a leftover of an earlier process with it.
                try? folder.remove(temporary)
                try data.withUnsafeBytes { bytes in
                    Result { () throws(SystemCallError) in try folder.replace(name, with: bytes, temporary: temporary) }
                }.get()
            } catch {
                throw UbiquityKitError.documentFile(path: path, reason: "cannot write it: \(error)")
            }
        }
    }

    /// A conflict name not taken yet: this host, the UTC time, and a counter if needed.
    private func conflictVersionName() throws -> String {
        var now = time(nil), parts = tm()
        gmtime_r(&now, &parts)
        // Zero-padded by hand: String(format:) is Foundation's, with ICU behind it.
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let savedAt = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))-"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let device = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for n in 1...100 {
            let name = CoordinatedSave.conflictName(of: lastComponent, savedAt: savedAt, device: n == 1 ? device : "\(device)-\(n)")
            if access(directory + "/" + name, F_OK) != 0 { return name }
        }
        throw UbiquityKitError.documentFile(path: path, reason: "100 conflict versions were saved this second; try again")
    }

    // MARK: - State

    private func handle(_ delivery: Result<ServerEvent, UbiquityKitError>) {
        switch delivery {
        case .success(.documentLockChanged(_, _, let locked, let yours)):
            changeState { state in
                state.lockedByOther = locked && !yours
                if !locked { for waiter in state.unlockWaiters.values { waiter.yield() } }
            }
        case .success: break
        case .failure: markClosed()
        }
    }

    private func noteConflicts() {
        let conflict = conflicts.results.first?.value(forAttribute: "hasUnresolvedConflicts") == .bool(true)
        changeState { $0.inConflict = conflict }
    }

    private func markClosed() {
        changeState { $0.closed = true }
        state.withLock { state in
            for observer in state.observers.values { observer.finish() }
            state.observers.removeAll()
        }
    }

    /// A save went through: `etag` names the version it wrote.
    func noteSaved(_ etag: ItemETag?) { changeState { $0.etag = etag; $0.savingError = false } }

    /// A save failed: ``DocumentState/savingError`` until one succeeds.
    func noteSaveFailed() { changeState { $0.savingError = true } }

    /// Applies a change and tells the observers when the flags differ.
    private func changeState(_ change: (inout State) -> Void) {
        state.withLock { state in
            let before = state.flags
            change(&state)
            let after = state.flags
            if before != after { for observer in state.observers.values { observer.yield(after) } }
        }
    }
}

/// Saves in this process so far (any document's): each save's temporary name is its own.
private let saveAttempts = Atomic<Int>(0)
