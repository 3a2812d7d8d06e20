import CUbiquitySystem
import Glibc
import Synchronization

/// A second thread that takes the status of a directory's entries together with the crawl, so a
/// warm crawl — a `statx` per entry, kernel time almost all of it — works on both cores.
///
/// The crawl reads a stretch of a directory's names (``DirectoryBatch``), hands the stretch out
/// here and takes chunks of it itself; this thread takes the other chunks. Each status lands in
/// the slot of its name, so the crawl goes on in `readdir` order exactly as alone: the listing,
/// the watches and their order do not depend on which thread took which status. The crawl never
/// waits for this thread to wake up: a chunk is claimed under the lock, and the crawl only waits
/// for chunks this thread already claimed (at most one, ``chunkEntries`` calls).
///
/// ```
/// crawl:   read names a…z ─ hand out ─ stat a…h ─ stat q…z ─ wait for i…p ─ entries in order
/// helper:                    stat i…p ┘
/// ```
final class StatHelper: Sendable {
    /// Names per chunk: large enough that claiming one (a lock) costs nothing next to its calls.
    static let chunkEntries = 32

    /// What the crawl hands out: pointers into its ``DirectoryBatch``, valid until every chunk is done.
    private struct Job: @unchecked Sendable {
        var directory: Int32
        var batch: DirectoryBatch.Storage
        var chunks: Int
    }

    private struct State: ~Copyable {
        var job: Job?
        var next = 0
        var done = 0
        /// Chunks the helper's own thread took, over every job.
        var taken = 0
        var stopped = false
    }

    private let state = Mutex(State())
    /// Posted once per job (and at the stop): the thread sleeps on it between jobs.
    private let wake: ThreadSemaphore

    private init(wake: ThreadSemaphore) {
        self.wake = wake
    }

    deinit { wake.destroy() }

    /// A helper on a thread of its own; nil when no thread could be had (the crawl stats alone).
    static func start() -> StatHelper? {
        guard let wake = ThreadSemaphore() else { return nil }
        let helper = StatHelper(wake: wake)
        do {
            try ReaderThread.start { helper.run() }
        } catch {
            return nil
        }
        return helper
    }

    /// Chunks the helper's own thread took so far (the rest the crawl took itself).
    var chunksTaken: Int { state.withLock { $0.taken } }

    /// Ends the thread (after the chunk it is on, if any); the helper must not be used again.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.post()
    }

    /// Takes the status of every name of `batch`, relative to `directory`, this thread and the
    /// helper together; returns when all are in `batch`.
    func stat(directory: Int32, _ batch: DirectoryBatch) {
        let chunks = (batch.count + Self.chunkEntries - 1) / Self.chunkEntries
        state.withLock {
            $0.job = Job(directory: directory, batch: batch.storage, chunks: chunks)
            $0.next = 0
            $0.done = 0
        }
        wake.post()
        while let chunk = claim() {
            Self.stat(directory: directory, batch.storage, chunk: chunk)
            state.withLock { $0.done += 1 }
        }
        // Only chunks the helper claimed are left: it is working on them now.
        while !state.withLock({ $0.done == $0.job?.chunks }) { sched_yield() }
        state.withLock { $0.job = nil }
    }

    private func claim() -> Int? {
        state.withLock { state -> Int? in
            guard let job = state.job, state.next < job.chunks else { return nil }
            state.next += 1
            return state.next - 1
        }
    }

    private func run() {
        while true {
            wake.wait()
            while true {
                let claimed = state.withLock { state -> (Job, Int)? in
                    guard !state.stopped, let job = state.job, state.next < job.chunks else { return nil }
                    state.next += 1
                    return (job, state.next - 1)
                }
                guard let (job, chunk) = claimed else { break }
                Self.stat(directory: job.directory, job.batch, chunk: chunk)
                state.withLock {
                    $0.done += 1
                    $0.taken += 1
                }
            }
            if state.withLock({ $0.stopped }) { return }
        }
    }

    private static func stat(directory: Int32, _ batch: DirectoryBatch.Storage, chunk: Int) {
        let end = min(batch.count, (chunk + 1) * chunkEntries)
        for index in chunk * chunkEntries..<end {
            batch.stat(index, in: directory)
        }
    }
}
