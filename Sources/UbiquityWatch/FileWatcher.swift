import CUbiquitySystem
import Glibc
import Synchronization
public import UbiquityIndex
public import UbiquitySystem

/// Watches containers with inotify and turns what the kernel reports into ordered
/// ``FileSystemChange`` batches for `MetadataIndex.apply(_:)`.
///
/// One watch per directory; a dedicated reader thread drains the kernel queue promptly (`poll` on
/// the inotify descriptor plus an `eventfd` to wake it). Each read of the queue becomes one
/// ``ChangeBatch``: renames paired by cookie into `.move`, writes coalesced into one fresh `.stat`
/// per path, new or moved-in directories watched first and then crawled into a `.listing`. A
/// whole container's crawl also sends its entries ahead in `.listingPart`s while the walk goes on
/// (``Configuration/crawlPartEntries``), each in a batch of its own, so the consumer can apply
/// them meanwhile; its `.listing` still holds them all.
///
/// ```
/// kernel queue:  CREATE .x.tmp | MODIFY .x.tmp | CLOSE_WRITE .x.tmp | MOVED_FROM .x.tmp (c=7) | MOVED_TO x (c=7)
///                 └──────────── one .stat(.x.tmp) ──────────────┘   └────── one .move(.x.tmp → x) ─────┘
/// read ends:     ... | MOVED_FROM a (c=9) ▌  → poll up to `pairingWindow` for MOVED_TO (c=9):
///                                             it comes → .move; it does not → a moved out: .remove(a)
/// ```
///
/// Guarantees:
/// 1. A consumer that applies every batch in order holds what a fresh ``Crawler`` crawl would
///    list, once the file system is quiet and the consumer has applied the batch that
///    ``sync(timeout:)`` returned.
/// 2. A queue overflow rescans the containers of that queue (`.listing` of the root, which the
///    index diffs) and sends ``ChangeNotice/resync(_:reason:)``; bursts rescan at most once per
///    `overflowBackoff`. Each container has a queue of its own (up to `maxInotifyInstances`), so
///    one flooded container never makes another rescan.
/// 3. Directories that cannot be watched (budget, `ENOSPC`) are rescanned every `rescanInterval`
///    and reported in ``status`` and as ``ChangeNotice/subtreeUnwatched(_:)``; the rest stays watched.
/// 4. A container whose root disappears gets a rootless `.listing` and
///    ``ChangeNotice/containerUnavailable(_:)``; it is checked every `rescanInterval` and
///    reattached with ``ChangeNotice/containerAvailable(_:)`` when it is back.
///
/// ```swift
/// let watcher = try FileWatcher(containers: [descriptor])
/// try watcher.start()
/// for await batch in watcher.batches { _ = index.apply(batch.changes) }
/// ```
///
/// Nested containers (one root inside another) are not supported: one directory has one watch.
public final class FileWatcher: Sendable {
    /// Tuning; the defaults suit a desktop daemon.
    public struct Configuration: Sendable {
        /// The most inotify watches to hold. nil: 90% of `max_user_watches` (shared by every
        /// process of the uid). Never more than the kernel limit.
        public var maxWatches: Int?
        /// How often unwatched subtrees are rescanned and unavailable containers looked for.
        public var rescanInterval: Duration
        /// How long a `MOVED_FROM` at the end of a read waits for its `MOVED_TO`.
        public var pairingWindow: Duration
        /// The shortest time between two overflow rescans.
        public var overflowBackoff: Duration
        /// How long ``FileWatcher/sync(timeout:)`` waits by default.
        public var syncTimeout: Duration
        /// Bytes per read of the inotify queue (at least one maximal event is enforced).
        public var readBufferSize: Int
        /// The most inotify instances to open, the shared one included. Each container gets its
        /// own while the limit (and the kernel's `max_user_instances`, 128 by default per uid)
        /// allows, so an overflow rescans only the containers that lost events; the rest share one.
        public var maxInotifyInstances: Int
        /// The tag pass reads only while the consumer has applied every batch emitted (it says so
        /// with ``FileWatcher/consumed(through:)``), or someone waits for tags: on a busy machine
        /// it then does not take the processor from applying a crawl's listing. False: at once.
        public var tagPassFollowsConsumer = false
        /// A tag pass nobody waits for reads only once the kernel queue has had no event for this
        /// long (and a crawl ended at least this long ago): while changes keep arriving, their
        /// notifications do not share the processor with it. Zero: no wait.
        public var tagPassQuietPeriod: Duration = .zero
        /// However busy the kernel queue, a pass waiting for quiet still reads once this long has
        /// passed since it last read (or since the crawl that gave it work).
        public var tagPassLongestDeferral: Duration = .seconds(1)
        /// Entries of a container's crawl sent ahead in one part while the walk goes on
        /// (``FileSystemChange/listingPart(_:_:)``), so the consumer applies them meanwhile and
        /// only the last part remains when the walk ends; 0: the listing goes whole at the end.
        public var crawlPartEntries = 8192
        /// When a container's crawl gets a second walker that reads the directories it will reach
        /// last (``ReadAhead``): two reads in flight on a cold disk instead of one.
        public var crawlReadAhead = ReadAhead.whenCold
        /// Whether a container's crawl takes the statuses of a directory's entries on two threads
        /// (``StatHelper``: stretches of at least 64 entries, the rest alone, and only while the
        /// subtree helper has nothing to walk); the listing is the same.
        public var crawlStatHelper = true
        /// Whether a container's crawl walks whole subtrees on a second thread (``SubtreeHelper``:
        /// the last subdirectories it would reach, while it walks the first ones, when the watch
        /// budget has 1,024 watches or more left); the listing is the same.
        public var crawlSubtreeHelper = true

        public enum ReadAhead: Sendable {
            case never
            /// When one of the crawl's first directories had to be read from the disk.
            case whenCold
            /// Always (tests: the crawl's result is the same).
            case always
        }

        public init(
            maxWatches: Int? = nil, rescanInterval: Duration = .seconds(10), pairingWindow: Duration = .milliseconds(10),
            overflowBackoff: Duration = .milliseconds(100), syncTimeout: Duration = .seconds(10),
            readBufferSize: Int = 64 * 1024, maxInotifyInstances: Int = 32
        ) {
            self.maxWatches = maxWatches
            self.rescanInterval = rescanInterval
            self.pairingWindow = pairingWindow
            self.overflowBackoff = overflowBackoff
            self.syncTimeout = syncTimeout
            self.readBufferSize = readBufferSize
            self.maxInotifyInstances = maxInotifyInstances
        }
    }

    /// Every batch, in order, from the initial crawl on. Finishes after ``stop()``.
    public let batches: AsyncStream<ChangeBatch>
    public let configuration: Configuration
    private let output: AsyncStream<ChangeBatch>.Continuation
    private let shared: WatcherShared
    private let inotifyFD: Int32

    /// Creates the shared inotify instance (each container gets its own when the reader starts
    /// watching it); nothing is read before ``start()``.
    ///
    /// - Parameters:
    ///   - containers: Watched from the start; more can come with ``addContainer(_:)``.
    /// - Throws: ``WatchError`` naming `inotify_init1` (too many instances) or `eventfd`.
    public init(containers: [ContainerDescriptor], configuration: Configuration = Configuration()) throws(WatchError) {
        self.configuration = configuration
        inotifyFD = try Inotify.open()
        let wakeFD: Int32
        do throws(WatchError) {
            wakeFD = try System.call("eventfd", as: WatchError.self) { ubq_eventfd_cloexec_nonblock(0) }
        } catch {
            close(inotifyFD)
            throw error
        }
        let kernelLimit = Inotify.kernelWatchLimit()
        let ceiling = kernelLimit ?? 8192
        let budget = max(0, min(configuration.maxWatches ?? ceiling * 9 / 10, ceiling))
        shared = WatcherShared(wakeFD: wakeFD, budget: budget, kernelLimit: kernelLimit,
                               initial: containers.map { .add($0) })
        (batches, output) = AsyncStream.makeStream(of: ChangeBatch.self, bufferingPolicy: .unbounded)
        let shared = self.shared
        output.onTermination = { _ in shared.requestStop() }
    }

    deinit {
        shared.requestStop()
        if shared.takeOwnershipIfNeverStarted() {
            close(inotifyFD)
            close(shared.wakeFD)
            output.finish()
        }
    }

    /// Starts the reader thread: it watches and crawls every container (each one's first batch is
    /// a `.listing` of its root and ``ChangeNotice/containerAvailable(_:)`` or `...Unavailable`),
    /// then reports changes as they happen.
    ///
    /// - Throws: ``WatchError/Code/stopped`` when already started or stopped; `pthread_create` errors.
    public func start() throws(WatchError) {
        guard shared.beginRunning() else {
            throw WatchError(.stopped, message: "the watcher was already started or stopped")
        }
        let (shared, output, configuration, inotifyFD) = (self.shared, self.output, self.configuration, self.inotifyFD)
        do throws(WatchError) {
            try ReaderThread.start {
                let core = WatcherCore(inotify: Inotify(adopting: inotifyFD, bufferSize: configuration.readBufferSize),
                                       shared: shared, output: output, configuration: configuration)
                core.run()
            }
        } catch {
            shared.revertToCreated()
            throw error
        }
    }

    /// Stops the reader thread, closes the descriptors and finishes ``batches``. Pending
    /// ``sync(timeout:)`` calls fail with ``WatchError/Code/stopped``. Idempotent.
    public func stop() async {
        if shared.takeOwnershipIfNeverStarted() {
            close(inotifyFD)
            close(shared.wakeFD)
            output.finish()
            return
        }
        shared.requestStop()
        await shared.waitUntilStopped()
    }

    /// Watches one more container (or updates the package types of a known one and rescans it).
    public func addContainer(_ container: ContainerDescriptor) {
        shared.send(.add(container))
    }

    /// Stops watching a container; its items are removed with a rootless `.listing`.
    public func removeContainer(_ id: ContainerID) {
        shared.send(.remove(id))
    }

    /// Whether the reader thread is alive and taking commands: it answers a barrier (no file is
    /// written). The daemon's watchdog pings only while this returns true.
    ///
    /// - Returns: false when the watcher is not running (stopped, or never started).
    public func ping() async -> Bool {
        guard shared.state.withLock({ $0.phase == .running }) else { return false }
        let shared = self.shared
        // No state captured across the suspension: a mutable capture here crashed the release
        // compiler (LLVM coroutine splitting, Swift 6.3.1). A refused command resumes at once,
        // and the phase check afterwards tells the two apart.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !shared.send(.barrier(continuation)) { continuation.resume() }
        }
        return shared.state.withLock { $0.phase == .running }
    }

    /// The watcher's health now.
    public var status: WatchStatus { shared.state.withLock { $0.status } }

    /// A cookie barrier for complete gathering (guarantee 1 in docs/live-queries.md).
    ///
    /// Writes a uniquely named hidden cookie file into each available container root and waits
    /// until the reader has seen its creation. The kernel queues events in order, so by then every
    /// event of a change made before this call has been read and emitted. Unwatched subtrees of
    /// the container are rescanned before the barrier completes. Cookie files never appear in
    /// emitted changes and are deleted before this returns.
    ///
    /// ```
    /// caller:  write x ─ sync() ── create .ubiquity-sync-42-7 ─────── await ─────────────── returns 18
    /// reader:            ... MODIFY x │ CREATE .ubiquity-sync-42-7 → emit batch 18 → acknowledge
    /// ```
    ///
    /// - Parameter timeout: How long to wait; ``Configuration/syncTimeout`` when nil.
    /// - Returns: A sequence number: once batches up to it are applied, the consumer reflects every
    ///   change made before the call.
    /// - Throws: ``WatchError/Code/syncTimedOut``, ``WatchError/Code/stopped``, or
    ///   ``WatchError/Code/cancelled`` when the calling task is cancelled.
    public func sync(timeout: Duration? = nil) async throws(WatchError) -> UInt64 {
        guard shared.state.withLock({ $0.phase == .running }) else {
            throw WatchError(.stopped, message: "the watcher is not running")
        }
        // Containers added before this call (at start, or by addContainer) must be watched and
        // crawled before their roots can take a cookie: wait for the reader to run the commands,
        // unless it has run (and published) every command sent so far. The wait is a round trip
        // to the reader thread, and most syncs (one per query) come with no command pending.
        let shared = self.shared
        if shared.state.withLock({ $0.commandsSent != $0.commandsPublished }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if !shared.send(.barrier(continuation)) { continuation.resume() }
            }
        }
        guard let (roots, last) = shared.state.withLock({ $0.phase == .running ? ($0.roots, $0.status.lastSequence) : nil })
        else { throw WatchError(.stopped, message: "the watcher is not running") }
        // The timeout starts now, not at the call: the barrier waited for crawls still running
        // (a cold crawl of a million files takes longer than any timeout), which is progress,
        // not a stuck reader. A query sent during the initial crawl used to fail here.
        let deadline = ContinuousClock.now + (timeout ?? configuration.syncTimeout)

        var waiters: [Int] = []
        // Each cookie is written into the very directory the reader holds: opened here without
        // following a symlink and checked by device and inode, then created relative to it.
        var cookies: [(root: ContainerRoot, name: String)] = []
        defer {
            for cookie in cookies {
                unlinkat(cookie.root.fd, cookie.name, 0)
                cookie.root.close()
            }
        }
        for (id, location) in roots.sorted(by: { $0.key < $1.key }) {
            let cookie = "\(Crawler.cookiePrefix)\(getpid())-\(FileWatcher.cookieCounter.add(1, ordering: .relaxed).newValue)"
            // Register first: the reader may see the cookie before `open` returns.
            let waiter = shared.register(container: id, cookie: cookie)
            waiters.append(waiter)
            var written = false
            if case .success(let root) = ContainerRoot.open(location.path) {
                if root.device == location.device && root.inode == location.inode {
                    let fd = openat(root.fd, cookie, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                    if fd >= 0 {
                        close(fd)
                        cookies.append((root, cookie))
                        written = true
                    }
                }
                if !written { root.close() }
            }
            // No cookie (read-only root, root just vanished or replaced): the reader rescans instead.
            if !written { shared.requireRescan(waiter) }
        }
        shared.wake()       // the reader acknowledges waiters it cannot see a cookie for
        var sequence = last
        do {
            for waiter in waiters {
                sequence = max(sequence, try await shared.awaitAcknowledgement(waiter, deadline: deadline))
            }
        } catch {
            for waiter in waiters { shared.cancel(waiter) }
            if let error = error as? WatchError { throw error }
            throw WatchError(.cancelled, message: "the task waiting for sync was cancelled")
        }
        return sequence
    }

    private static let cookieCounter = Atomic<UInt64>(0)

    /// The consumer has applied every batch up to `sequence`
    /// (``Configuration/tagPassFollowsConsumer``). Cheap: wakes the reader only when it waits for this.
    public func consumed(through sequence: UInt64) {
        shared.noteConsumed(sequence)
    }

    /// Where this watcher's crawls step aside, before each stretch of a directory's entries, while the consumer holds it
    /// (``CrawlPause``): an answer from what the consumer already has, gathered and written while
    /// a crawl checks it.
    public var crawlPause: CrawlPause { shared.crawlPause }

    /// The consumer began (`true`) or finished (`false`) answering a query
    /// (``Configuration/tagPassFollowsConsumer``): the tag pass counts it as activity, like the
    /// kernel queue's events, and leaves the processor to the answer.
    public func answering(_ busy: Bool) {
        shared.noteAnswering(busy, at: System.monotonicNanoseconds())
    }

    /// ``sync(timeout:)``, and with `includingTags` also the tags of everything crawled before
    /// the call: a crawl lists entries without their tags and the reader's tag pass reads them
    /// after (``WatchStatus/tagPassPending``). Only a consumer that needs tags waits for that.
    ///
    /// - Returns: A sequence number: once batches up to it are applied, the consumer reflects
    ///   every change made before the call, and (`includingTags`) every entry's tags.
    public func sync(timeout: Duration? = nil, includingTags: Bool) async throws(WatchError) -> UInt64 {
        let sequence = try await sync(timeout: timeout)
        guard includingTags else { return sequence }
        let shared = self.shared
        // Like the crawl a barrier waits for, the tag pass is progress: no timeout.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !shared.send(.afterTagPass(continuation, hurrying: true)) { continuation.resume() }
        }
        guard let last = shared.state.withLock({ $0.phase == .running ? $0.status.lastSequence : nil })
        else { throw WatchError(.stopped, message: "the watcher is not running") }
        return max(sequence, last)
    }

    /// Returns once the tag pass has read everything crawled before the call, without hurrying
    /// it (it reads at its own pace: ``Configuration/tagPassQuietPeriod``); at once when it has
    /// nothing to read or the watcher stops. The batches holding those tags are emitted by then.
    public func tagPassFinished() async {
        let shared = self.shared
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !shared.send(.afterTagPass(continuation, hurrying: false)) { continuation.resume() }
        }
    }

    // MARK: - Test hooks

    /// Parks the reader before its next read (it then reads nothing until ``releaseReader()``):
    /// lets tests build up a kernel queue deliberately. Returns once the reader is parked.
    package func holdReader() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !shared.send(.hold(continuation)) { continuation.resume() }
        }
    }

    /// Lets a held reader read again.
    package func releaseReader() {
        shared.send(.release)
    }

    /// Returns once the reader publishes a ``status`` for which `condition` holds (at once when
    /// the current one does), or when the watcher stops or the task is cancelled: lets tests wait
    /// for what the reader saw — an overflow, tags held back — rather than look again and again,
    /// and the daemon wait for the first tag pass in a way a shutdown can end.
    package func statusReached(_ condition: @escaping @Sendable (WatchStatus) -> Bool) async {
        await shared.statusReached(condition)
    }

    /// Stops the tag pass (the reader goes on reading events and crawling): lets tests show
    /// what does and does not wait for it. Returns once the reader has taken the command in, so
    /// a change made after it is read with the pass held: a command sent is otherwise taken in
    /// at the reader's next turn, after the events already queued then, and a pass that runs in
    /// that same turn would read tags the test wants left for later.
    package func holdTagPass() async {
        shared.send(.holdTagPass(true))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !shared.send(.barrier(continuation)) { continuation.resume() }
        }
    }

    package func releaseTagPass() {
        shared.send(.holdTagPass(false))
    }

    /// Makes the reader spend `duration` in its command loop, as a long crawl does: lets tests
    /// show that a `sync` waiting behind a crawl does not count the crawl against its timeout.
    package func stallCommandLoop(for duration: Duration) {
        shared.send(.stall(duration))
    }
}

extension Inotify {
    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
    static func open() throws(WatchError) -> Int32 {
        try System.call("inotify_init1", as: WatchError.self) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }
}
