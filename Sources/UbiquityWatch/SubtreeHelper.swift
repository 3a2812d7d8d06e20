import Glibc
import Synchronization
import UbiquityIndex
import UbiquitySystem

/// A second walker of a crawl: on a thread of its own it walks whole subtrees the crawl hands it
/// — each one the last subdirectory the crawl has not reached yet of the shallowest directory
/// it has open, so the crawl reaches it last — and the crawl takes the result in when its own
/// walk gets there, in place of walking it.
///
/// The helper walks a subtree exactly as the crawl would (``Crawler/walk(root:rootPath:relative:visitor:)``):
/// each directory watched BEFORE it is read (``SubtreeVisitor``, its watches counted against the
/// same budget, ``WatchAllowance``), every entry `statx`-ed after its directory's watch, the
/// directories' statuses taken again after their watches. The crawl then has its visitor take
/// over the watches in the walk's order (``CrawlVisitor/adopt(_:)``) and appends the entries, so
/// the listing, its order, the watch tree and the parts sent ahead are the ones a walk alone
/// gives. A subtree the helper has not started when the crawl gets there the crawl takes back and
/// walks itself; one it has started the crawl waits for.
///
/// ```
/// crawl:  Documents ─ chain_0 … chain_1 … ─ chain_2: take the helper's result ─ chain_3 …
/// helper:             chain_329 ┘ chain_2 ┘                     chain_328 …
/// ```
///
/// Why: a warm crawl of a tree of small directories (20–40 levels deep, ten entries each) is a
/// few system calls per directory — `openat`, `inotify_add_watch`, `getdents64`, `statx` — on
/// one thread; the ``StatHelper`` only takes stretches of 64 entries or more, so the second core
/// idled (docs/architecture.md, the crawl).
final class SubtreeHelper: Sendable {
    /// A subtree handed out: the name of an entry of an open directory of the crawl.
    struct Job: Sendable {
        var id: Int
        /// The open directory's descriptor: the crawl keeps it open until it has taken the result.
        var parent: Int32
        var parentPath: [String]
        var parentVisited: Bool
        var name: String
        var watching: SubtreeWatching
    }

    /// A subtree walked: its listing (the root's status taken again after its watch) and what
    /// was skipped, paths below the container root, and the directories gone into in order.
    struct Walked: Sendable {
        var result: Crawler.Result
        var directories: [WalkedDirectory]
    }

    private struct State: ~Copyable {
        var offered: Job?
        var working: Int?
        var finished: [Int: Walked] = [:]
        /// Subtrees this thread walked (tests).
        var walked = 0
        var stopped = false
    }

    private let state = Mutex(State())
    /// Whether the helper has nothing to do: the crawl's cheap look, once per entry.
    private let idle = Atomic(true)
    private let wake: ThreadSemaphore
    private let done: ThreadSemaphore

    private init(wake: ThreadSemaphore, done: ThreadSemaphore) {
        self.wake = wake
        self.done = done
    }

    deinit {
        wake.destroy()
        done.destroy()
    }

    /// A helper on a thread of its own; nil when none could be had (the crawl walks alone).
    static func start() -> SubtreeHelper? {
        guard let wake = ThreadSemaphore() else { return nil }
        guard let done = ThreadSemaphore() else {
            wake.destroy()
            return nil
        }
        let helper = SubtreeHelper(wake: wake, done: done)
        do {
            try ReaderThread.start { helper.run() }
        } catch {
            return nil
        }
        return helper
    }

    /// Whether a subtree may be handed out now (nothing offered, nothing being walked).
    var wantsWork: Bool { idle.load(ordering: .relaxed) }

    /// Subtrees this thread walked so far.
    var subtreesWalked: Int { state.withLock { $0.walked } }

    /// Hands out a subtree (only when ``wantsWork``).
    func offer(_ job: Job) {
        idle.store(false, ordering: .relaxed)
        state.withLock { $0.offered = job }
        wake.post()
    }

    /// The crawl got to the subtree of job `id`: the helper's walk of it (waited for if under
    /// way), or nil when the helper had not started it (it is taken back: the crawl walks it).
    func take(_ id: Int) -> Walked? {
        enum Look { case takenBack, walked(Walked), underWay }
        while true {
            let look = state.withLock { state -> Look in
                if state.offered?.id == id {
                    state.offered = nil
                    return .takenBack
                }
                if let walked = state.finished.removeValue(forKey: id) { return .walked(walked) }
                return .underWay
            }
            switch look {
            case .takenBack:
                idle.store(true, ordering: .relaxed)
                return nil
            case .walked(let walked):
                return walked
            case .underWay:
                done.wait()
            }
        }
    }

    /// Ends the thread (after the subtree it is on, if any); the helper must not be used again.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.post()
    }

    private func run() {
        // The walks' stretches, kept from one subtree to the next (this thread's own).
        var spareBatches: [DirectoryBatch] = []
        while true {
            wake.wait()
            let job = state.withLock { state -> Job? in
                guard !state.stopped, let job = state.offered else { return nil }
                state.offered = nil
                state.working = job.id
                return job
            }
            if let job {
                let walked = Self.walk(job, spareBatches: &spareBatches)
                state.withLock {
                    $0.finished[job.id] = walked
                    $0.working = nil
                    $0.walked += 1
                }
                idle.store(true, ordering: .relaxed)
                done.post()
            }
            if state.withLock({ $0.stopped }) { return }
        }
    }

    private static func walk(_ job: Job, spareBatches: inout [DirectoryBatch]) -> Walked {
        var visitor = SubtreeVisitor(watching: job.watching, parentPath: job.parentPath, parentVisited: job.parentVisited)
        let rootPath = System.join(job.watching.containerRoot, job.parentPath)
        var result: Crawler.Result
        do {
            result = try Crawler().walk(root: job.parent, rootPath: rootPath, relative: [job.name], visitor: &visitor,
                                        spareBatches: &spareBatches)
        } catch {
            // Only a hostile component throws, and the name comes from readdir.
            result = Crawler.Result(listing: CrawlListing(root: nil), skipped: [])
        }
        for index in result.skipped.indices { result.skipped[index].path = job.parentPath + result.skipped[index].path }
        return Walked(result: result, directories: visitor.directories)
    }
}

