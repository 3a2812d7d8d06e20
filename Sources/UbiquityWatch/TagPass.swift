import UbiquityIndex

/// The directories whose entries' tags a crawl left out (``FileStat/tagsDeferred``), and who
/// waits for them: the reader thread reads them a few milliseconds at a time between reads of
/// the kernel queue (``WatcherCore/runTagPass()``), so a crawl's listing, and every query that
/// does not ask about tags, never waits for `getxattrat`.
///
/// Pure bookkeeping, used only on the reader thread. Each crawl's directories share a ticket; a
/// waiter (``FileWatcher/sync(timeout:includingTags:)``) takes the newest ticket and is done
/// when no directory of that ticket or an older one is left.
///
/// A pass nobody waits for also waits for the kernel queue to be quiet
/// (``FileWatcher/Configuration/tagPassQuietPeriod``): while changes keep arriving, their
/// notifications get the processor.
///
/// ```
/// crawl 1: d1 d2 d3 (ticket 1)   crawl 2: d4 (ticket 2)   waiter W takes ticket 2
/// chunk:   d1 d2 | events | d3 d4 → nothing ≤ 2 left: W resumes
/// ```
struct TagPass {
    struct Job {
        var slot: Int
        /// The directory's watch: its path is looked up when it is read (renames move it).
        var wd: Int32
        var ticket: UInt64
        /// Reads that found another directory at the watch's path (a rename whose events were
        /// still queued): it is read again after the next events.
        var attempts = 0
        /// Reads given up half way because events or a caller were waiting (``putBack(_:)``).
        var interruptions = 0
    }

    /// Reads of one directory that may be given up half way for waiting events before it is
    /// read in one go whatever waits: a directory always ends up read.
    static let maxInterruptions = 4

    /// Reads of one directory that find another directory in its place before it is given up:
    /// the events that explain the difference are already queued when the difference is seen,
    /// so one more read of the queue settles it.
    static let maxAttempts = 8

    private var jobs: [Job] = []
    private var head = 0
    /// Directories left per ticket.
    private var left: [UInt64: Int] = [:]
    private(set) var lastTicket: UInt64 = 0
    /// Who waits for which ticket; `hurrying`: the pass runs for them at once, quiet or not.
    private var waiters: [(ticket: UInt64, hurrying: Bool, continuation: CheckedContinuation<Void, Never>)] = []
    /// Test hook: nothing is read while held (``FileWatcher/holdTagPass()``).
    var held = false
    /// When the reader last read kernel events or finished a crawl (monotonic nanoseconds): a
    /// pass nobody waits for starts only once the queue has been quiet for a while after it.
    private(set) var lastActivity: Int64 = 0
    /// When the pass last read (or a crawl gave it work): however busy the queue, it is not put
    /// off for longer than a bound after it.
    private(set) var lastRead: Int64 = 0

    /// Directories still to read.
    var pending: Int { jobs.count - head }
    /// Directories the list has room for (test hook: none once drained).
    var storedCapacity: Int { jobs.capacity }
    /// Whether the reader should read some now.
    var isRunnable: Bool { !held && pending > 0 }
    /// Whether someone waits for tags: the pass then runs whatever the consumer is doing.
    var isAwaited: Bool { waiters.contains { $0.hurrying } }

    /// Queues the watched directories of one crawl, in the order it read them.
    mutating func add(slot: Int, directories: [Int32]) {
        guard !directories.isEmpty else { return }
        lastTicket += 1
        left[lastTicket] = directories.count
        jobs.reserveCapacity(pending + directories.count)
        for wd in directories { jobs.append(Job(slot: slot, wd: wd, ticket: lastTicket)) }
    }

    /// Whether a pass nobody hurries reads at `now` only because it was put off for
    /// `longestDeferral` while the queue never went quiet for `quietPeriod`.
    func isOverdue(at now: Int64, quietPeriod: Int64, longestDeferral: Int64) -> Bool {
        guard !isAwaited, quietPeriod > 0 else { return false }
        let (quietAt, deferredUntil) = readTimes(quietPeriod: quietPeriod, longestDeferral: longestDeferral)
        return now < quietAt && now >= deferredUntil
    }

    /// When the queue counts as quiet, and when the pass has been put off long enough (clamped,
    /// never trapping, however far the times are apart).
    private func readTimes(quietPeriod: Int64, longestDeferral: Int64) -> (quietAt: Int64, deferredUntil: Int64) {
        (lastActivity.saturatingAdding(quietPeriod), lastRead.saturatingAdding(max(longestDeferral, 0)))
    }

    /// The kernel queue had events (or a crawl ended) at `now`.
    mutating func noteActivity(at now: Int64) { lastActivity = max(lastActivity, now) }

    /// The pass read a chunk (or a crawl gave it work) at `now`.
    mutating func noteRead(at now: Int64) { lastRead = max(lastRead, now) }

    /// Nanoseconds until a pass may read at `now`: 0 when someone hurries it, or the queue has
    /// been quiet for `quietPeriod`, or the pass has been put off for `longestDeferral` since it
    /// last read; otherwise what is left of the shorter wait. Notifications come first: while
    /// changes keep arriving, the pass leaves the processor to them, for a while.
    func nanosecondsUntilQuiet(at now: Int64, quietPeriod: Int64, longestDeferral: Int64) -> Int64 {
        guard !isAwaited, quietPeriod > 0 else { return 0 }
        let (quietAt, deferredUntil) = readTimes(quietPeriod: quietPeriod, longestDeferral: longestDeferral)
        let readAt = min(quietAt, deferredUntil)
        return readAt <= now ? 0 : readAt.saturatingSubtracting(now)
    }

    mutating func next() -> Job? {
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head == jobs.count {
            // Drained: the list lets go of its storage (40 bytes a directory of the crawl, 4 bytes
            // an entry of a tree of ten-entry directories, kept for nothing after the pass).
            jobs = []
            head = 0
        } else if head > 4096 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    /// The directory was read (or is gone, or cannot be read): its ticket has one less.
    mutating func done(_ job: Job) {
        guard let count = left[job.ticket] else { return }
        left[job.ticket] = count > 1 ? count - 1 : nil
    }

    /// The read stopped half way for events or a caller: read it again later (no answer was
    /// sent for it; its ticket still counts it).
    mutating func putBack(_ job: Job) {
        var again = job
        again.interruptions += 1
        jobs.append(again)
    }

    /// Another directory was found in its place: read it again later, or give up after
    /// ``maxAttempts``.
    mutating func retry(_ job: Job) {
        guard job.attempts + 1 < Self.maxAttempts else { return done(job) }
        var again = job
        again.attempts += 1
        jobs.append(again)
    }

    /// Resumed once everything queued before this call is read; at once when nothing is.
    ///
    /// - Parameter hurrying: Whether the pass runs at once for this waiter (a query about tags),
    ///   or at its own pace (``FileWatcher/tagPassFinished()``).
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>, hurrying: Bool = true) {
        if left.isEmpty { continuation.resume() } else { waiters.append((lastTicket, hurrying, continuation)) }
    }

    /// Waiters whose tickets are all read; they leave the list.
    mutating func finishedWaiters() -> [CheckedContinuation<Void, Never>] {
        guard !waiters.isEmpty else { return [] }
        let oldest = left.keys.min() ?? UInt64.max
        let ready = waiters.filter { $0.ticket < oldest }.map(\.continuation)
        waiters.removeAll { $0.ticket < oldest }
        return ready
    }

    /// Every waiter, for a reader that stops.
    mutating func takeAllWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { waiters.removeAll() }
        return waiters.map(\.continuation)
    }
}
