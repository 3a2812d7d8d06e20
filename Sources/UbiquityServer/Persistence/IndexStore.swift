import Glibc
import NIOPosix
import Synchronization
import UbiquityIndex
import UbiquitySystem

/// The saved index in the daemon's state directory (docs/architecture.md, "The saved index"):
///
/// ```
/// index.snapshot   the whole index and its change history, replaced atomically
/// index.journal    every batch applied since that snapshot, appended before its clock is handed out
/// index.answers    what live queries were answered at the last clean shutdown (``RememberedAnswers``),
///                  taken (read and removed) by the next start
/// index.lock       held (flock) while a daemon uses the two: a second daemon on the same state
///                  directory runs without saving rather than overwrite the first one's files
/// ```
/// The engine decides what to write and when; this writes it, on NIO's blocking thread pool
/// (``runBlocking(_:)``), while the engine goes on. A write that fails removes both files: a
/// saved index that is behind the clocks already handed out must never be loaded.
final class IndexStore: IndexPersistence, Sendable {
    static let snapshotName = "index.snapshot"
    static let journalName = "index.journal"
    static let lockName = "index.lock"
    static let answersName = "index.answers"
    /// Largest snapshot read (about 40 million entries); a larger one is discarded.
    static let maxSnapshotBytes = 4 << 30
    /// Largest journal read; the daemon writes a new snapshot long before (``journalBytesBeforeSnapshot``).
    static let maxJournalBytes = 1 << 30
    /// Past this much journal, the next check writes a snapshot (and starts an empty journal).
    static let journalBytesBeforeSnapshot = 64 << 20

    let path: String
    let bootID: String
    private let directory: Directory
    /// Held for the life of the store (closing it releases the lock).
    private let lock: Int32
    /// Where snapshots are encoded and written: a thread of the store's own, scheduled as batch
    /// work (set by its first job), so that the engine and the event loops win a contended core.
    /// Started by the first job (``runBlocking(_:)``), not with the store: until the first save
    /// (after the first crawl) the daemon has no such thread, nor its stack and malloc arena; it
    /// then lives as long as the store.
    private let writer: NIOThreadPool
    /// The journal, and what it has to hold, behind one lock: appends come from the engine, the
    /// switch to a new snapshot's journal from the writing thread.
    private let journal = Mutex(JournalState())
    /// The snapshot the last successful replace wrote, open for reading back
    /// (``readSnapshot(at:into:)``); -1 before the first and after ``discard()``.
    private let written = Mutex<Int32>(-1)

    struct JournalState {
        /// Open for appending; -1 before the first snapshot and after a failure.
        var fd: Int32 = -1
        /// Bytes in it, header included: where a snapshot taken now continues it.
        var length: UInt64 = 0
        /// While a snapshot is written: the records appended since it was taken, for its journal.
        var pending: [UInt8]?

        mutating func close() {
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
            length = 0
        }
    }

    private init(path: String, directory: Directory, lock: Int32) {
        self.path = path
        self.directory = directory
        let fd = Glibc.open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = fd >= 0 ? max(0, Glibc.read(fd, &buffer, buffer.count)) : 0
        if fd >= 0 { close(fd) }
        // Without a boot id every snapshot counts as another boot's: only clean shutdowns are trusted.
        bootID = String(decoding: buffer[..<count].filter { $0 > 32 }, as: UTF8.self)
        self.lock = lock
        writer = NIOThreadPool(numberOfThreads: 1)
    }

    deinit {
        writer.shutdownGracefully { _ in }
        journal.withLock { $0.close() }
        written.withLock { if $0 >= 0 { close($0) } }
        close(lock)
    }

    /// Opens (creating it, mode 0700) the state directory, refusing one that is not the daemon's
    /// own (``DurableFiles/openStateDirectory(_:)``), and takes its lock.
    static func open(stateDirectory: String) -> Result<IndexStore, FileProblem> {
        let directory: Directory
        switch DurableFiles.openStateDirectory(stateDirectory) {
        case .success(let opened): directory = opened
        case .failure(let problem): return .failure(problem)
        }
        let lock = openat(directory.fd, lockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            return .failure(FileProblem("cannot open \(stateDirectory)/\(lockName): \(String(cString: strerror(errno)))"))
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno == EWOULDBLOCK ? "another ubiquityd uses this state directory" : String(cString: strerror(errno))
            close(lock)
            return .failure(FileProblem("\(stateDirectory)/\(lockName): \(failure)"))
        }
        return .success(IndexStore(path: stateDirectory, directory: directory, lock: lock))
    }

    /// The saved snapshot and journal as they are on disk; nil for a file that does not exist.
    /// - Parameter betweenPieces: called between pieces of the read (``Directory/readPieceBytes``).
    func read(betweenPieces: (() -> Void)? = nil) -> (snapshot: Result<[UInt8], FileProblem>?, journal: Result<[UInt8], FileProblem>?) {
        (limited(Self.snapshotName, Self.maxSnapshotBytes, betweenPieces: betweenPieces),
         limited(Self.journalName, Self.maxJournalBytes, betweenPieces: betweenPieces))
    }

    /// Whether there is a snapshot to load (``read()`` reads it).
    var hasSnapshot: Bool {
        (try? directory.status(of: Array(Self.snapshotName.utf8))) != nil
    }

    /// The journal when it is no longer than a clean shutdown's (a header naming its snapshot,
    /// no record); nil when there is none or it is longer.
    func cleanShutdownJournal() -> [UInt8]? {
        guard case .success(let bytes)? = limited(Self.journalName, 256) else { return nil }
        return bytes
    }

    /// The answers the last clean shutdown remembered; nil when there are none. The file is
    /// removed as it is read: a later start (after a crash, the snapshot moved on) never takes
    /// them again.
    func takeAnswers() -> Result<[UInt8], FileProblem>? {
        defer { try? directory.remove(Self.answersName) }
        return limited(Self.answersName, RememberedAnswers.maxFileBytes)
    }

    /// Writes the answers a clean shutdown remembers, after its final snapshot.
    func remember(answers: [UInt8]) {
        try? directory.replace(Self.answersName, with: answers, mode: 0o600)
    }

    private func limited(_ name: String, _ limit: Int, betweenPieces: (() -> Void)? = nil) -> Result<[UInt8], FileProblem>? {
        DurableFiles.read(name, in: directory, limit: limit, betweenPieces: betweenPieces).map { result in
            result.flatMap { $0.count > limit ? .failure(FileProblem("it is larger than \(limit) bytes")) : .success($0) }
                .mapError { FileProblem("\(path)/\(name): \($0.message)") }
        }
    }

    /// Removes the snapshot and the journal (they were refused, or are behind). Records kept for
    /// a snapshot being written stay: they go into its journal.
    func discard() {
        journal.withLock { $0.close() }
        forgetWritten()
        try? directory.remove(Self.snapshotName)
        try? directory.remove(Self.journalName)
        try? directory.remove(Self.answersName)
    }

    func appendToJournal(_ record: [UInt8]) -> Bool {
        let written = journal.withLock { state in
            state.pending?.append(contentsOf: record)
            guard state.fd >= 0 else { return state.pending != nil }
            guard (try? System.writeAll(record, to: state.fd)) != nil else { return false }
            state.length += UInt64(record.count)
            return true
        }
        if !written { discard() }
        return written
    }

    func beginSnapshot() -> UInt64? {
        journal.withLock { state in
            state.pending = []
            return state.fd >= 0 ? state.length : nil
        }
    }

    /// The snapshot first, then the journal: until the new journal is in place, the old one
    /// (which the snapshot continues) takes the records. Any failure removes both files and is
    /// the failed call (``SystemCallError``).
    ///
    /// The snapshot is the door's durable replace, which waits for the disk: this runs on
    /// ``writer``, never on the engine or Swift's cooperative pool. The new journal is created
    /// under a temporary name and renamed into place, holding the lock that appends take, so no
    /// record goes to the old one after it is replaced; it is not `fsync`-ed (a journal is read
    /// only within the boot it was written in, where the page cache keeps it), so the lock is
    /// held for a write and a rename, not for the disk.
    func replace(snapshot: [UInt8], journalHeader: [UInt8]) throws {
        forgetWritten()
        do throws(SystemCallError) {
            try directory.replace(Self.snapshotName, with: snapshot, mode: 0o600)
        } catch {
            journal.withLock { $0.pending = nil }
            discard()
            throw error
        }
        // Ours: the lock keeps every other daemon out of the directory. Not readable, the next
        // snapshot is encoded whole.
        let fd = openat(directory.fd, Self.snapshotName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 { written.withLock { $0 = fd } }
        let failure: SystemCallError? = journal.withLock { state in
            defer { state.pending = nil }
            let records = state.pending ?? []
            var generator = SystemRandomNumberGenerator()
            let temporary = Directory.temporaryName(of: Array(Self.journalName.utf8), generator: &generator)
            let fd: Int32
            do throws(SystemCallError) {
                fd = try System.call("openat", path: directory.path(of: temporary)) {
                    openat(directory.fd, temporary.map { CChar(bitPattern: $0) } + [0],
                           O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                }
            } catch { return error }
            do throws(SystemCallError) {
                try System.writeAll(journalHeader + records, to: fd, path: directory.path(of: temporary))
                try directory.rename(temporary, to: Array(Self.journalName.utf8))
            } catch {
                Glibc.close(fd)
                try? directory.remove(temporary)
                return error
            }
            state.close()
            state.fd = fd
            state.length = UInt64(journalHeader.count + records.count)
            return nil
        }
        if let failure {
            discard()
            throw failure
        }
    }

    /// The saved index's journal goes on after a restore (``JournalContinuation``): no snapshot
    /// is written before the first batch. `.append` opens the journal read, cuts a torn last record
    /// off (`ftruncate` to its whole records) and appends; `.fresh` writes a new one with the
    /// door's durable replace (``Directory/replace(_:with:mode:temporary:)``) and opens it. The
    /// lock (``open(stateDirectory:)``) has kept every other daemon out since the files were read.
    /// A failure removes both files.
    func continueJournal(_ continuation: JournalContinuation, records: [UInt8]) throws {
        do throws(SystemCallError) {
            try journal.withLock { (state) throws(SystemCallError) in
                state.close()
                let name = Array(Self.journalName.utf8)
                let length: UInt64
                switch continuation {
                case .append(_, let whole):
                    length = whole
                case .fresh(_, let header, let carried):
                    try directory.replace(name, with: header + carried, mode: 0o600)
                    length = UInt64(header.count + carried.count)
                }
                let fd = try System.call("openat", path: directory.path(of: name)) {
                    openat(directory.fd, Self.journalName, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
                }
                do throws(SystemCallError) {
                    var info = stat()
                    try System.call("fstat", path: directory.path(of: name)) { fstat(fd, &info) }
                    // The file read, whole records and all (it cannot have shrunk: the lock is ours).
                    guard info.st_mode & S_IFMT == S_IFREG, UInt64(clamping: info.st_size) >= length, length <= UInt64(Int64.max) else {
                        throw SystemCallError("fstat", errno: EINVAL, path: directory.path(of: name))
                    }
                    if UInt64(clamping: info.st_size) > length {
                        try System.call("ftruncate", path: directory.path(of: name)) { ftruncate(fd, off_t(length)) }
                    }
                    try System.writeAll(records, to: fd, path: directory.path(of: name))
                } catch {
                    Glibc.close(fd)
                    throw error
                }
                state.fd = fd
                state.length = length + UInt64(records.count)
            }
        } catch {
            discard()
            throw error
        }
    }

    var readsSnapshotBack: Bool { true }

    /// A `pread` of the snapshot last written, kept open since: a snapshot's unchanged pieces
    /// come from the page cache instead of a copy in memory.
    func readSnapshot(at offset: Int, into destination: UnsafeMutableRawBufferPointer) -> Bool {
        written.withLock { fd in
            guard fd >= 0, offset >= 0 else { return false }
            var done = 0
            while done < destination.count {
                let (sum, overflow) = offset.addingReportingOverflow(done)
                guard !overflow else { return false }
                let n = pread(fd, destination.baseAddress! + done, destination.count - done, off_t(sum))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }       // an error, or the file ends before
                done += n
            }
            return true
        }
    }

    private func forgetWritten() {
        written.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// On ``writer``. Not cancelled with the caller: a snapshot once begun is written
    /// (``beginSnapshot()`` keeps records until ``replace(snapshot:journalHeader:)`` takes them).
    func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let writer = self.writer
        // Starts the thread the first time; does nothing after (NIOThreadPool.start).
        writer._start(threadNamePrefix: "IndexWriter-#")
        return try await Task.detached {
            try await writer.runIfActive {
                // SCHED_BATCH (3; glibc declares it only for _GNU_SOURCE), for this thread (pid 0):
                // CPU-bound background work that a waking engine or event loop preempts, yet at its
                // fair share, so a busy machine slows a save down but never starves it (at nice 10 a
                // snapshot of 100k entries took 0.5 s instead of 50 ms at load 15).
                if sched_getscheduler(0) != 3 {
                    var parameter = sched_param(sched_priority: 0)
                    _ = sched_setscheduler(0, 3, &parameter)
                }
                return try work()
            }
        }.value
    }
}
