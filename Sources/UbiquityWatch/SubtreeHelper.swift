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
/// walks itself. One it is still walking the crawl does not just wait for: while it waits, the
/// helper's walk hands pieces of that subtree back to the crawl's thread by the same rule
/// (``back``, a helper without a thread of its own), which walks each as the helper would and
/// hands the result back; the helper's walk takes it in where it reaches it (takes it back if
/// the crawl's thread never started it, waits for it if it is under way: a piece is smaller
/// than the subtree), so the helper's result is again the one a walk alone gives.
///
/// ```
/// crawl:  Documents ─ chain_0 … chain_1 … ─ chain_2: take the helper's result ─ chain_3 …
/// helper:             chain_329 ┘ chain_2 ┘                     chain_328 …
/// ```
///
/// Why: a warm crawl of a tree of small directories (20–40 levels deep, ten entries each) is a
/// few system calls per directory — `openat`, `inotify_add_watch`, `getdents64`, `statx` — on
/// one thread; the ``StatHelper`` only takes stretches of 64 entries or more, so the second core
/// idled (docs/architecture.md, the crawl). The pieces handed back: on a tree whose few top
/// subtrees are lopsided (the default 1M tree: Documents holds three, of 140k, 272k and 589k
/// entries) the helper got the biggest, and the crawl then sat waiting for it for 0.5 s of a
/// 3.2 s crawl while the helper walked on alone, one core idle (perf).
///
/// No deadlock: the crawl's thread waits only for a subtree the helper is walking, and the helper
/// posts when it finishes it or hands a piece back; the helper waits only for a piece the crawl's
/// thread is walking, whose walk hands nothing out and waits for nothing.
final class SubtreeHelper: Sendable {
    /// A subtree handed out: the name of an entry of an open directory of the crawl.
    struct Job: Sendable {
        var id: Int
        /// The open directory's descriptor: the crawl keeps it open until it has taken the result.
        var parent: Int32
        /// The open directory's components below the container root (also for a piece handed
        /// back, whose walk's own paths start lower: ``SubtreeWatching/base``).
        var parentPath: [String]
        var parentVisited: Bool
        var name: String
        var watching: SubtreeWatching
    }

    /// A subtree walked: its listing (the root's status taken again after its watch) and what
    /// was skipped, paths as the walk that handed it out has them (below the container root,
    /// or for a piece handed back below the helper's subtree's parent), and the directories
    /// gone into in order.
    struct Walked: Sendable {
        var result: Crawler.Result
        var directories: [WalkedDirectory]
    }

    private struct State: ~Copyable {
        /// Jobs handed out and not started, in the order offered (the thread takes the first).
        var offered: [Job] = []
        var working: Int?
        var finished: [Int: Walked] = [:]
        /// Subtrees walked: by this thread, or (``back``) by the crawl's thread while it waited (tests).
        var walked = 0
        /// Subtrees walked after which the next one was already offered (tests).
        var followedAtOnce = 0
        var stopped = false
        /// Whether jobs are taken at all: always for a thread; for ``back``, only while the
        /// crawl's thread waits for the helper (it then walks them).
        var open: Bool
    }

    private let state: Mutex<State>
    /// Jobs the helper holds at most, offered and under way together: two for a thread (the
    /// next one waits while it walks, so it never sleeps until the crawl notices it is done),
    /// one for ``back`` (the crawl's thread walks its pieces one at a time).
    private let jobsInHand: Int
    /// Whether another job may be offered: the crawl's cheap look, once per entry. Set under
    /// the lock, from the state.
    private let room: Atomic<Bool>
    /// Whether the helper has nothing offered and nothing under way. Set with ``room``.
    private let idle: Atomic<Bool>
    /// Posted when a job is offered (and to stop): this thread's; for ``back``, its owner's
    /// `done`, on which the crawl's thread waits.
    private let wake: ThreadSemaphore
    /// Posted when a job is finished.
    private let done: ThreadSemaphore
    /// Pieces of the subtree this thread walks handed back to the crawl's thread while it waits
    /// for it (nil for that channel itself): a helper without a thread of its own, its jobs
    /// walked in ``take(_:spareBatches:)`` by the thread waiting there.
    let back: SubtreeHelper?

    private init(wake: ThreadSemaphore, done: ThreadSemaphore, back: SubtreeHelper?) {
        state = Mutex(State(open: back != nil))
        jobsInHand = back != nil ? 2 : 1
        room = Atomic(back != nil)
        idle = Atomic(back != nil)
        self.wake = wake
        self.done = done
        self.back = back
    }

    deinit {
        // `back` posts its owner's `done` as its `wake`: only its own `done` is its own.
        if back != nil { wake.destroy() }
        done.destroy()
    }

    /// A helper on a thread of its own; nil when none could be had (the crawl walks alone).
    static func start() -> SubtreeHelper? {
        guard let wake = ThreadSemaphore() else { return nil }
        guard let done = ThreadSemaphore() else {
            wake.destroy()
            return nil
        }
        guard let backDone = ThreadSemaphore() else {
            wake.destroy()
            done.destroy()
            return nil
        }
        let helper = SubtreeHelper(wake: wake, done: done, back: SubtreeHelper(wake: done, done: backDone, back: nil))
        do {
            try ReaderThread.start { helper.run() }
        } catch {
            return nil
        }
        return helper
    }

    /// Whether a subtree may be handed out now (fewer than ``jobsInHand`` offered and being
    /// walked; for ``back``, the crawl's thread waiting).
    var wantsWork: Bool { room.load(ordering: .relaxed) }

    /// Whether the helper has nothing to do (nothing offered, nothing being walked): the crawl
    /// then has a ``StatHelper`` take part of a long stretch's statuses on the other core.
    var isIdle: Bool { idle.load(ordering: .relaxed) }

    /// Subtrees walked so far: by this thread, or for ``back`` by the crawl's thread (tests).
    var subtreesWalked: Int { state.withLock { $0.walked } }

    /// Subtrees this thread walked with the next one already waiting when it was done (tests): a
    /// helper that holds one job at a time never has one.
    var subtreesFollowedAtOnce: Int { state.withLock { $0.followedAtOnce } }

    /// Hands out a subtree (only when ``wantsWork``).
    func offer(_ job: Job) {
        change { $0.offered.append(job) }
        wake.post()
    }

    /// The crawl got to the subtree of job `id`: the helper's walk of it (waited for if under
    /// way), or nil when the helper had not started it (it is taken back: the crawl walks it).
    /// While it waits, the crawl's thread walks the pieces the helper hands back (``back``),
    /// each with a stretch of `spareBatches`.
    func take(_ id: Int, spareBatches: inout [DirectoryBatch]) -> Walked? {
        enum Look { case takenBack, walked(Walked), underWay }
        while true {
            let look = change { state -> Look in
                if let index = state.offered.firstIndex(where: { $0.id == id }) {
                    state.offered.remove(at: index)
                    return .takenBack
                }
                if let walked = state.finished.removeValue(forKey: id) { return .walked(walked) }
                return .underWay
            }
            switch look {
            case .takenBack:
                return nil
            case .walked(let walked):
                // The helper's walk of it is over: every piece of it was taken. A piece of the
                // next job the helper is on may be offered: it waits for the crawl's next wait
                // here, or its own walk takes it back.
                back?.change { $0.open = false }
                return walked
            case .underWay:
                if let back, let piece = back.change({ state -> Job? in
                    // Open while this thread waits: the helper's walk hands it pieces.
                    state.open = true
                    guard !state.offered.isEmpty else { return nil }
                    let piece = state.offered.removeFirst()
                    state.working = piece.id
                    return piece
                }) {
                    let walked = Self.walk(piece, back: nil, spareBatches: &spareBatches)
                    back.change {
                        $0.finished[piece.id] = walked
                        $0.working = nil
                        $0.walked += 1
                    }
                    back.done.post()
                    continue
                }
                // The helper posts when it finishes the job, and when it hands a piece back.
                done.wait()
            }
        }
    }

    /// Ends the thread (after the subtree it is on, if any); the helper must not be used again.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.post()
    }

    /// Changes the state under the lock, and ``idle`` with it.
    private func change<Value>(_ body: (inout State) -> Value) -> Value {
        state.withLock { state in
            let value = body(&state)
            let inHand = state.offered.count + (state.working == nil ? 0 : 1)
            room.store(state.open && inHand < jobsInHand, ordering: .relaxed)
            idle.store(state.open && inHand == 0, ordering: .relaxed)
            return value
        }
    }

    private func run() {
        // The walks' stretches, kept from one subtree to the next (this thread's own).
        var spareBatches: [DirectoryBatch] = []
        while true {
            wake.wait()
            let job = change { state -> Job? in
                guard !state.stopped, !state.offered.isEmpty else { return nil }
                let job = state.offered.removeFirst()
                state.working = job.id
                return job
            }
            if let job {
                let walked = Self.walk(job, back: back, spareBatches: &spareBatches)
                change {
                    $0.finished[job.id] = walked
                    $0.working = nil
                    $0.walked += 1
                    if !$0.offered.isEmpty { $0.followedAtOnce += 1 }
                }
                done.post()
            }
            if state.withLock({ $0.stopped }) { return }
        }
    }

    /// Walks a job as the crawl would; `back`: where the walk hands pieces of it (none for a piece).
    private static func walk(_ job: Job, back: SubtreeHelper?, spareBatches: inout [DirectoryBatch]) -> Walked {
        var visitor = SubtreeVisitor(watching: job.watching, parentPath: job.parentPath, parentVisited: job.parentVisited,
                                     back: back)
        let rootPath = System.join(job.watching.containerRoot, job.parentPath)
        var result: Crawler.Result
        do {
            result = try Crawler().walk(root: job.parent, rootPath: rootPath, relative: [job.name], visitor: &visitor,
                                        spareBatches: &spareBatches)
        } catch {
            // Only a hostile component throws, and the name comes from readdir.
            result = Crawler.Result(listing: CrawlListing(root: nil), skipped: [])
        }
        // The walk's paths start at the job's name: in the terms of the walk that handed it out.
        let above = job.parentPath.dropFirst(job.watching.base.count)
        for index in result.skipped.indices { result.skipped[index].path = above + result.skipped[index].path }
        return Walked(result: result, directories: visitor.directories)
    }
}
