import Glibc
import Synchronization
import UbiquityIndex
import UbiquitySystem

/// The saved index in the daemon's state directory (docs/architecture.md, "The saved index"):
///
/// ```
/// index.snapshot   the whole index and its change history, replaced atomically
/// index.journal    every batch applied since that snapshot, appended before its clock is handed out
/// index.lock       held (flock) while a daemon uses the two: a second daemon on the same state
///                  directory runs without saving rather than overwrite the first one's files
/// ```
/// The engine decides what to write and when; this writes it. A write that fails removes both
/// files: a saved index that is behind the clocks already handed out must never be loaded.
final class IndexStore: IndexPersistence, Sendable {
    static let snapshotName = "index.snapshot"
    static let journalName = "index.journal"
    static let lockName = "index.lock"
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
    /// The journal, open for appending; -1 before the first snapshot and after a failure.
    private let journal = Mutex<Int32>(-1)

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
    }

    deinit {
        journal.withLock { if $0 >= 0 { close($0) } }
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
    func read() -> (snapshot: Result<[UInt8], FileProblem>?, journal: Result<[UInt8], FileProblem>?) {
        func limited(_ name: String, _ limit: Int) -> Result<[UInt8], FileProblem>? {
            DurableFiles.read(name, in: directory, limit: limit).map { result in
                result.flatMap { $0.count > limit ? .failure(FileProblem("it is larger than \(limit) bytes")) : .success($0) }
                    .mapError { FileProblem("\(path)/\(name): \($0.message)") }
            }
        }
        return (limited(Self.snapshotName, Self.maxSnapshotBytes), limited(Self.journalName, Self.maxJournalBytes))
    }

    /// Removes the snapshot and the journal (they were refused, or are behind).
    func discard() {
        journal.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
        try? directory.remove(Self.snapshotName)
        try? directory.remove(Self.journalName)
    }

    func appendToJournal(_ record: [UInt8]) -> Bool {
        let written = journal.withLock { fd in fd >= 0 && (try? System.writeAll(record, to: fd)) != nil }
        if !written { discard() }
        return written
    }

    /// The snapshot first, then the journal: a crash between the two leaves the new snapshot with
    /// the old journal, which names the old snapshot and is ignored (everything in it is in the
    /// new snapshot). Any failure removes both files and is the failed call (``SystemCallError``).
    ///
    /// Both files are the door's durable replace, which waits for the disk: the caller runs this
    /// off the engine, on a thread of its own or an `NIOThreadPool`, never on Swift's cooperative pool.
    func replace(snapshot: [UInt8], journalHeader: [UInt8]) throws {
        journal.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
        do throws(SystemCallError) {
            try directory.replace(Self.snapshotName, with: snapshot, mode: 0o600)
            try directory.replace(Self.journalName, with: journalHeader, mode: 0o600)
            let fd = try System.call("openat", path: directory.path(of: Self.journalName)) {
                openat(directory.fd, Self.journalName, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
            }
            journal.withLock { $0 = fd }
        } catch {
            discard()
            throw error
        }
    }
}
