import Glibc
import UbiquityIndex
import UbiquitySystem

/// The reader thread: the door between the kernel and the batches. It reads each channel's
/// events, asks ``RenamePairing`` and ``EventPolicy`` what they mean, performs that (watches,
/// crawls, stats relative to held descriptors) and builds the batch.
///
/// Single-threaded by construction: created on the reader thread, used only there, and every
/// exchange with callers goes through ``WatcherShared``.
final class WatcherCore {
    struct Container {
        var descriptor: ContainerDescriptor
        /// The root directory held while the container is available: every crawl, stat and tag
        /// read below it is relative to this descriptor, never to the path.
        var root: ContainerRoot?
        /// Why the container is unavailable, when something other than "missing" is known.
        var unavailableReason: String?
        var available = false
        /// Whether a first availability notice was sent.
        var announced = false
        /// Unwatched subtree roots → why. Keyed by the components' bytes (``ExactName``): two
        /// canonically equal directories are two records, each rescanned and forgotten alone.
        var unwatched: [[ExactName]: String] = [:]
    }

    /// One change of the batch being built. Stats are taken when the batch is emitted (or before a
    /// rename makes their paths stale), so repeated events for a path cost one `statx`.
    enum Operation {
        case stat(Int, [String])
        case move(Int, from: [String], to: [String])
        case ready(FileSystemChange)
        /// A stat of a path that was gone when taken: the delete or rename explaining it follows
        /// (a rename of a directory above it takes it again at the new place).
        case gone(Int, [String])
    }

    /// A status queued for a path, once per pass. The path is compared byte for byte
    /// (``ExactName``): a change in `café` must not stand for one in its canonically equal sibling.
    struct StatKey: Hashable {
        var container: Int
        var path: [ExactName]

        init(container: Int, path: [String]) {
            self.container = container
            self.path = ExactName.path(path)
        }
    }

    /// The first inotify instance: containers share it when they cannot have their own.
    let sharedChannel: WatchChannel
    /// Every open instance, the shared one first.
    var channels: [WatchChannel]
    /// Container slot → its channel.
    var channelOf: [Int: WatchChannel] = [:]
    let shared: WatcherShared
    let output: AsyncStream<ChangeBatch>.Continuation
    let configuration: FileWatcher.Configuration
    let crawler = Crawler()
    let budget: Int
    let kernelLimit: Int?

    var containers: [Int: Container] = [:]
    var nextSlot = 0

    var operations: [Operation] = []
    /// Operations before this index are resolved already.
    var resolvedPrefix = 0
    var notices: [ChangeNotice] = []
    /// The latest entries that could not be indexed (at most ``maxSkippedEntries``), and how many
    /// there were in all, for `status` and the journal.
    var skippedEntries: [SkippedEntry] = []
    var skippedTotal = 0
    static let maxSkippedEntries = 100
    var pendingStats: Set<StatKey> = []
    var sequence: UInt64 = 0

    var overflowCount = 0
    var resyncCount = 0
    var nextTickAt: Int64
    var held = false
    /// How many of the commands sent the reader has taken and run (``SharedState/commandsSent``
    /// when it took them); published with the next status.
    var commandsRun: UInt64 = 0
    /// Directories whose entries' tags a crawl left out, read between reads of the queue.
    var tagPass = TagPass()

    init(inotify: Inotify, shared: WatcherShared, output: AsyncStream<ChangeBatch>.Continuation,
         configuration: FileWatcher.Configuration) {
        sharedChannel = WatchChannel(inotify: inotify, backoffNanoseconds: configuration.overflowBackoff.nanoseconds,
                                     isShared: true)
        channels = [sharedChannel]
        self.shared = shared
        self.output = output
        self.configuration = configuration
        (budget, kernelLimit) = shared.state.withLock { ($0.status.watchBudget, $0.status.kernelWatchLimit) }
        nextTickAt = System.monotonicNanoseconds() + configuration.rescanInterval.nanoseconds
    }

    /// The channel a container is watched through.
    func channel(_ slot: Int) -> WatchChannel { channelOf[slot] ?? sharedChannel }

    /// Watches held through every channel: what the budget counts.
    var watchesUsed: Int { channels.reduce(0) { $0 + $1.tree.count } }

    /// Gives a new container its own inotify instance when the limit and the kernel allow,
    /// else the shared one.
    func assignChannel(_ slot: Int) {
        var channel = sharedChannel
        if channels.count < configuration.maxInotifyInstances, let fd = try? Inotify.open() {
            channel = WatchChannel(inotify: Inotify(adopting: fd, bufferSize: configuration.readBufferSize),
                                   backoffNanoseconds: configuration.overflowBackoff.nanoseconds, isShared: false)
            channels.append(channel)
        }
        channel.slots.insert(slot)
        channelOf[slot] = channel
    }

    /// A removed container's channel closes with it (the shared one stays).
    func releaseChannel(_ slot: Int) {
        let channel = channel(slot)
        channel.slots.remove(slot)
        channelOf[slot] = nil
        guard !channel.isShared else { return }
        channel.inotify.close()
        channels.removeAll { $0 === channel }
    }

    // MARK: - The loop

    func run() {
        loop: while processCommands() {
            flush()
            publishStatus()
            let polled = held ? [] : channels
            var fds = [pollfd(fd: shared.wakeFD, events: Int16(POLLIN), revents: 0)]
                + polled.map { pollfd(fd: $0.inotify.fd, events: Int16(POLLIN), revents: 0) }
            // Tags still to read: look at the queue without waiting, then read some; or wake when
            // the queue has been quiet long enough for them.
            noteConsumerAnswering()
            let timeout: Int32 = held ? -1 : tagPassMayRun ? 0 : millisecondsUntilNextTimer(orTagPass: tagPass.isRunnable)
            let result = poll(&fds, nfds_t(fds.count), timeout)
            if result < 0 && Glibc.errno != EINTR { break }
            if fds[0].revents != 0 {
                var value: UInt64 = 0
                _ = read(shared.wakeFD, &value, MemoryLayout<UInt64>.size)
            }
            if held { continue }
            for (index, channel) in polled.enumerated() where fds[index + 1].revents != 0 {
                tagPass.noteActivity(at: System.monotonicNanoseconds())
                guard readAndProcess(channel) else { break loop }
            }
            runTimers()
            runTagPass()
        }
        shutdown()
    }

    /// - Parameter tagPass: Whether the end of the tag pass's quiet period counts too.
    func millisecondsUntilNextTimer(orTagPass tagPass: Bool = false) -> Int32 {
        var next = nextTickAt
        for channel in channels { if let due = channel.resync.dueAt { next = min(next, due) } }
        let now = System.monotonicNanoseconds()
        // Only while the quiet period runs: once it is over, the pass waits for the consumer,
        // whose progress wakes the reader (a zero timeout here would spin).
        if tagPass, case let quiet = nanosecondsUntilTagPassQuiet, quiet > 0 { next = min(next, now &+ quiet) }
        let remaining = next - now
        if remaining <= 0 { return 0 }
        return Int32(clamping: (remaining + 999_999) / 1_000_000)
    }

    func runTimers() {
        let now = System.monotonicNanoseconds()
        for channel in channels where channel.resync.isDue(at: now) { resync(channel) }
        guard now >= nextTickAt else { return }
        nextTickAt = now + configuration.rescanInterval.nanoseconds
        for slot in containers.keys.sorted() {
            guard let container = containers[slot] else { continue }
            if container.available {
                // The root's parent renamed, or the root swapped while no event could tell:
                // the path no longer leads to the directory held.
                if let root = container.root, !root.isStill(at: container.descriptor.root) {
                    containerLost(slot)
                    continue
                }
                rescanUnwatched(slot)
            } else if Self.somethingIsAt(container.descriptor.root) {
                attachContainer(slot)
            }
        }
    }

    /// Runs callers' commands. - Returns: false when the watcher must stop.
    func processCommands() -> Bool {
        let (commands, stopping, taken) = shared.state.withLock { state in
            defer { state.commands.removeAll() }
            return (state.commands, state.phase != .running, state.commandsSent)
        }
        if stopping {
            for case .hold(let continuation) in commands { continuation.resume() }
            for case .barrier(let continuation) in commands { continuation.resume() }
            for case .afterTagPass(let continuation, _) in commands { continuation.resume() }
            return false
        }
        var barriers: [CheckedContinuation<Void, Never>] = []
        for command in commands {
            switch command {
            case .add(let descriptor):
                if let slot = containers.first(where: { $0.value.descriptor.id == descriptor.id })?.key {
                    containers[slot]?.descriptor = descriptor
                    attachContainer(slot)
                } else {
                    nextSlot += 1
                    containers[nextSlot] = Container(descriptor: descriptor)
                    assignChannel(nextSlot)
                    attachContainer(nextSlot)
                }
            case .remove(let id):
                guard let slot = containers.first(where: { $0.value.descriptor.id == id })?.key else { continue }
                detachContainer(slot)
                operations.append(.ready(.listing(id, [], CrawlListing(root: nil))))
                flush()
                containers[slot] = nil
                releaseChannel(slot)
                shared.acknowledge(sequence: sequence) { $1.container == id }
            case .hold(let continuation):
                held = true
                continuation.resume()
            case .release:
                held = false
            case .stall(let duration):
                let nanoseconds = duration.nanoseconds
                var pause = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
                var left = timespec()
                while nanosleep(&pause, &left) == -1 && errno == EINTR { pause = left }
            case .barrier(let continuation):
                barriers.append(continuation)
            case .afterTagPass(let continuation, let hurrying):
                tagPass.wait(continuation, hurrying: hurrying)
            case .holdTagPass(let hold):
                tagPass.held = hold
            }
        }
        serviceWaiters()
        commandsRun = taken
        if !barriers.isEmpty {
            flush()
            publishStatus()
            for continuation in barriers { continuation.resume() }
        }
        return true
    }

    /// Acknowledges sync waiters that no cookie event will answer: containers that are gone or
    /// whose root is not watched, and waiters whose cookie could not be written.
    func serviceWaiters() {
        for (id, waiter) in shared.openWaiters() {
            guard let slot = containers.first(where: { $0.value.descriptor.id == waiter.container })?.key,
                  let container = containers[slot], container.available else {
                flush()
                shared.acknowledge(sequence: sequence) { candidate, _ in candidate == id }
                continue
            }
            if waiter.needsRescan {
                attach(slot, [])
            } else if channel(slot).tree.roots[slot] == nil {
                rescanUnwatched(slot)
            } else {
                continue        // its cookie event will come
            }
            flush()
            shared.acknowledge(sequence: sequence) { candidate, _ in candidate == id }
        }
    }

    func shutdown() {
        flush()
        let (waiters, stopWaiters) = shared.finish()
        for slot in containers.keys { containers[slot]?.root?.close() }
        for channel in channels { channel.inotify.close() }
        close(shared.wakeFD)
        output.finish()
        for waiter in waiters { waiter.resume(throwing: WatchError(.stopped, message: "the watcher stopped during sync")) }
        for waiter in stopWaiters { waiter.resume() }
        for waiter in tagPass.takeAllWaiters() { waiter.resume() }
    }
}

@available(*, unavailable, message: "owned by the watcher's reader thread")
extension WatcherCore: Sendable {}
