import Glibc
import UbiquityIndex

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
        /// Unwatched subtree roots → why.
        var unwatched: [[String]: String] = [:]
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

    struct StatKey: Hashable {
        var container: Int
        var path: [String]
    }

    /// The first inotify instance: containers share it when they cannot have their own.
    let sharedChannel: WatchChannel
    /// Every open instance, the shared one first.
    private(set) var channels: [WatchChannel]
    /// Container slot → its channel.
    private var channelOf: [Int: WatchChannel] = [:]
    let shared: WatcherShared
    let output: AsyncStream<ChangeBatch>.Continuation
    let configuration: FileWatcher.Configuration
    let crawler = Crawler()
    let budget: Int
    let kernelLimit: Int?

    var containers: [Int: Container] = [:]
    private var nextSlot = 0

    private var operations: [Operation] = []
    /// Operations before this index are resolved already.
    private var resolvedPrefix = 0
    private var notices: [ChangeNotice] = []
    /// The latest entries that could not be indexed (at most ``maxSkippedEntries``), and how many
    /// there were in all, for `status` and the journal.
    private var skippedEntries: [SkippedEntry] = []
    private var skippedTotal = 0
    static let maxSkippedEntries = 100
    private var pendingStats: Set<StatKey> = []
    private(set) var sequence: UInt64 = 0

    private var overflowCount = 0
    private var resyncCount = 0
    private var nextTickAt: Int64
    private var held = false

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
    private func assignChannel(_ slot: Int) {
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
    private func releaseChannel(_ slot: Int) {
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
            let result = poll(&fds, nfds_t(fds.count), held ? -1 : millisecondsUntilNextTimer())
            if result < 0 && Glibc.errno != EINTR { break }
            if fds[0].revents != 0 {
                var value: UInt64 = 0
                _ = read(shared.wakeFD, &value, MemoryLayout<UInt64>.size)
            }
            if held { continue }
            for (index, channel) in polled.enumerated() where fds[index + 1].revents != 0 {
                guard readAndProcess(channel) else { break loop }
            }
            runTimers()
        }
        shutdown()
    }

    private func millisecondsUntilNextTimer() -> Int32 {
        var next = nextTickAt
        for channel in channels { if let due = channel.resync.dueAt { next = min(next, due) } }
        let remaining = next - System.monotonicNanoseconds()
        if remaining <= 0 { return 0 }
        return Int32(clamping: (remaining + 999_999) / 1_000_000)
    }

    private func runTimers() {
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
    private func processCommands() -> Bool {
        let (commands, stopping) = shared.state.withLock { state in
            defer { state.commands.removeAll() }
            return (state.commands, state.phase != .running)
        }
        if stopping {
            for case .hold(let continuation) in commands { continuation.resume() }
            for case .barrier(let continuation) in commands { continuation.resume() }
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
            }
        }
        serviceWaiters()
        if !barriers.isEmpty {
            flush()
            publishStatus()
            for continuation in barriers { continuation.resume() }
        }
        return true
    }

    /// Acknowledges sync waiters that no cookie event will answer: containers that are gone or
    /// whose root is not watched, and waiters whose cookie could not be written.
    private func serviceWaiters() {
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

    private func shutdown() {
        flush()
        let (waiters, stopWaiters) = shared.finish()
        for slot in containers.keys { containers[slot]?.root?.close() }
        for channel in channels { channel.inotify.close() }
        close(shared.wakeFD)
        output.finish()
        for waiter in waiters { waiter.resume(throwing: WatchError(.stopped, message: "the watcher stopped during sync")) }
        for waiter in stopWaiters { waiter.resume() }
    }

    // MARK: - Reading events

    /// Reads one buffer of a channel's events and turns it into operations.
    /// - Returns: false when the descriptor is unusable.
    private func readAndProcess(_ channel: WatchChannel) -> Bool {
        var events: [InotifyEvent] = []
        do {
            guard try channel.inotify.read(into: &events) else { return true }
        } catch {
            return false
        }
        var pairing = RenamePairing(events)
        while let step = pairing.next(events) {
            switch step {
            case .overflow:
                overflowCount += 1
                channel.resync.overflowed(at: System.monotonicNanoseconds())
            case .event(let index):
                handle(events[index], in: channel)
            case .rename(let from, let to):
                handleRename(from: events[from], to: events[to], in: channel)
            case .movedOut(let index):
                handleMoveOut(events[index], in: channel)
            case .awaitPartner:
                // The read ended between the halves of a rename: wait a little for the other.
                if channel.inotify.waitReadable(milliseconds: Int32(clamping: configuration.pairingWindow.milliseconds)) {
                    let known = events.count
                    _ = try? channel.inotify.read(into: &events)
                    pairing.arrived(events, from: known)
                }
            }
        }
        if channel.resync.isDue(at: System.monotonicNanoseconds()) { resync(channel) }
        return true
    }

    /// Performs what ``EventPolicy`` decides for one event.
    private func handle(_ event: InotifyEvent, in channel: WatchChannel) {
        guard let directory = channel.tree.directory(event.wd) else { return }       // a watch we already forgot
        let slot = directory.container
        let entryIsWatched = event.name.map { channel.tree.child(of: event.wd, named: $0) != nil } ?? false
        let decisions = EventPolicy.decide(event, isContainerRoot: directory.parent == nil, entryIsWatched: entryIsWatched)
        guard !decisions.isEmpty else { return }
        let parentPath = channel.tree.path(of: event.wd)
        let name = event.name ?? ""
        for decision in decisions {
            switch decision {
            case .watchVanished: watchVanished(event.wd, in: channel)
            case .containerLost: containerLost(slot)
            case .cookieSeen(let cookie): cookieSeen(cookie, slot)
            case .skipped(let raw):
                if let id = containers[slot]?.descriptor.id {
                    recordSkipped(id, parentPath + [String(decoding: raw, as: UTF8.self)], reason: "name: the name is not valid UTF-8")
                }
            case .statDirectory: addStat(slot, parentPath)
            case .statEntry: addStat(slot, parentPath + [name])
            case .attachEntry: attach(slot, parentPath + [name])
            case .forgetEntry: forget(slot, parent: event.wd, name: name)
            case .removeEntry(let isDirectory): addRemove(slot, parentPath + [name], isDirectory: isDirectory)
            }
        }
    }

    /// A paired `MOVED_FROM`/`MOVED_TO`.
    private func handleRename(from source: InotifyEvent, to destination: InotifyEvent, in channel: WatchChannel) {
        guard let sourceDirectory = channel.tree.directory(source.wd), let sourceName = source.name else {
            handle(destination, in: channel)
            return
        }
        guard let destinationDirectory = channel.tree.directory(destination.wd), let destinationName = destination.name,
              sourceDirectory.container == destinationDirectory.container else {
            handleMoveOut(source, in: channel)
            handle(destination, in: channel)
            return
        }
        if Crawler.isCookie(sourceName) || Crawler.isCookie(destinationName) { return }
        let slot = sourceDirectory.container
        let fromParent = channel.tree.path(of: source.wd)
        let toParent = channel.tree.path(of: destination.wd)
        let from = fromParent + [sourceName]
        let to = toParent + [destinationName]
        // Stats already queued name paths this rename is about to change: take them now.
        materialize()

        let moved = channel.tree.child(of: source.wd, named: sourceName)
        if let replaced = channel.tree.child(of: destination.wd, named: destinationName), replaced != moved {
            forget(slot, parent: destination.wd, name: destinationName)     // renamed over an empty directory
        }
        renameUnwatched(slot, from: from, to: to)
        var needsCrawl = false
        if source.mask.contains(.isDirectory) {
            if let moved {
                dropWatches(channel.tree.move(moved, to: destination.wd, name: destinationName), in: channel)
            } else if containers[slot]?.unwatched[to] == nil {
                needsCrawl = true                   // a directory we held no watch for
            }
        }
        operations.append(.move(slot, from: from, to: to))
        if source.mask.contains(.isDirectory) { restatMovedAway(slot, from: from, to: to) }
        if needsCrawl { attach(slot, to) }
        addStat(slot, fromParent)
        addStat(slot, toParent)
    }

    /// Stats taken just before a directory's rename found nothing below it when the directory
    /// had moved already (an entry created in it, then the rename, in one read): take them again
    /// at the new place, after the move.
    private func restatMovedAway(_ slot: Int, from: [String], to: [String]) {
        for operation in operations {
            guard case .gone(slot, let path) = operation, path.count > from.count, path.starts(with: from) else { continue }
            addStat(slot, to + path.dropFirst(from.count))
        }
    }

    /// A `MOVED_FROM` without partner: moved out of the container (or of everything we watch).
    private func handleMoveOut(_ event: InotifyEvent, in channel: WatchChannel) {
        guard let directory = channel.tree.directory(event.wd), let name = event.name, !Crawler.isCookie(name) else { return }
        let parentPath = channel.tree.path(of: event.wd)
        forget(directory.container, parent: event.wd, name: name)
        addRemove(directory.container, parentPath + [name], isDirectory: event.mask.contains(.isDirectory))
        addStat(directory.container, parentPath)
    }

    /// The kernel dropped a watch (`IN_IGNORED`): its directory was deleted or unmounted.
    private func watchVanished(_ wd: Int32, in channel: WatchChannel) {
        guard let directory = channel.tree.directory(wd) else { return }
        if directory.parent == nil {
            containerLost(directory.container)
        } else {
            dropWatches(channel.tree.remove(subtree: wd).filter { $0 != wd }, in: channel)
        }
    }

    /// Forgets the watches and unwatched records at and below `parent/name`.
    private func forget(_ slot: Int, parent: Int32, name: String) {
        let channel = channel(slot)
        if let child = channel.tree.child(of: parent, named: name) { dropWatches(channel.tree.remove(subtree: child), in: channel) }
        let path = channel.tree.path(of: parent) + [name]
        guard let container = containers[slot], !container.unwatched.isEmpty else { return }
        let gone = container.unwatched.keys.filter { $0.starts(with: path) }
        for subtree in gone.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            containers[slot]?.unwatched[subtree] = nil
            notices.append(.subtreeGone(container.descriptor.id, subtree))
        }
    }

    private func dropWatches(_ wds: [Int32], in channel: WatchChannel) {
        for wd in wds { channel.inotify.removeWatch(wd) }
    }

    private func renameUnwatched(_ slot: Int, from: [String], to: [String]) {
        guard let unwatched = containers[slot]?.unwatched, !unwatched.isEmpty else { return }
        var renamed: [[String]: String] = [:]
        for (path, reason) in unwatched {
            guard path.starts(with: from) else { renamed[path] = reason; continue }
            let newPath = to + path.dropFirst(from.count)
            renamed[newPath] = reason
            // Told as gone and unwatched anew, so consumers that track the list keep no stale path.
            if let id = containers[slot]?.descriptor.id {
                notices.append(.subtreeGone(id, path))
                notices.append(.subtreeUnwatched(UnwatchedSubtree(container: id, path: newPath, reason: reason)))
            }
        }
        containers[slot]?.unwatched = renamed
    }

    // MARK: - Containers

    /// Watches and crawls a container root; announces whether it is available.
    private func attachContainer(_ slot: Int) {
        guard let before = containers[slot] else { return }
        if before.root.map({ !$0.isStill(at: before.descriptor.root) }) ?? true {
            detachContainer(slot)
            switch ContainerRoot.open(before.descriptor.root) {
            case .success(let root):
                containers[slot]?.root = root
                containers[slot]?.unavailableReason = nil
            case .failure(.missing):
                containers[slot]?.unavailableReason = nil
            case .failure(.refused(let reason)):
                containers[slot]?.unavailableReason = reason
            }
        }
        let listing = attach(slot, [])
        let available = listing?.root != nil
        containers[slot]?.available = available
        containers[slot]?.announced = true
        if available && (!before.available || !before.announced) {
            notices.append(.containerAvailable(before.descriptor.id))
        } else if !available && (before.available || !before.announced) {
            detachContainer(slot)
            notices.append(.containerUnavailable(before.descriptor.id))
        }
    }

    /// The root was deleted, moved away or unmounted.
    private func containerLost(_ slot: Int) {
        guard let container = containers[slot] else { return }
        detachContainer(slot)
        operations.append(.ready(.listing(container.descriptor.id, [], CrawlListing(root: nil))))
        if container.available { notices.append(.containerUnavailable(container.descriptor.id)) }
        containers[slot]?.available = false
        // Deleted and re-created before we noticed: take it back at once. Replaced by something
        // else (a symlink): the reason is in the status before anyone hears of the loss.
        if Self.somethingIsAt(container.descriptor.root) { attachContainer(slot) }
        flush()
        shared.acknowledge(sequence: sequence) { $1.container == container.descriptor.id }
    }

    /// Whether anything (a symlink included, never followed) is at `path`.
    private static func somethingIsAt(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0
    }

    private func detachContainer(_ slot: Int) {
        let channel = channel(slot)
        for wd in channel.tree.descriptors(ofContainer: slot) {
            channel.inotify.removeWatch(wd)
            channel.tree.remove(subtree: wd)
        }
        containers[slot]?.unwatched = [:]
        containers[slot]?.root?.close()
        containers[slot]?.root = nil
    }

    // MARK: - Watching and crawling

    /// Watches every directory of the subtree at `path` (each one BEFORE it is read), crawls it and
    /// queues its `.listing`. Watches held below `path` that the walk no longer finds are removed.
    @discardableResult
    private func attach(_ slot: Int, _ path: [String]) -> CrawlListing? {
        guard let container = containers[slot], let root = container.root else { return nil }
        var candidates: [Int32] = []
        let channel = channel(slot)
        if let wd = channel.tree.lookup(container: slot, path) { candidates = channel.tree.subtree(wd) }
        let previouslyUnwatched = container.unwatched.filter { $0.key.starts(with: path) }
        for key in previouslyUnwatched.keys { containers[slot]?.unwatched[key] = nil }

        var visitor = WatchingVisitor(core: self, channel: channel, container: slot)
        let result: Crawler.Result
        do {
            result = try crawler.walk(root: root.fd, rootPath: container.descriptor.root, relative: path, visitor: &visitor)
        } catch {
            return nil      // only invalid paths throw, and these come from the kernel and the tree
        }
        candidates += visitor.displaced
        var stale: [Int32] = []
        for wd in Set(candidates) where !visitor.visited.contains(wd) && channel.tree.directory(wd) != nil {
            stale.append(contentsOf: channel.tree.remove(subtree: wd).filter { !visitor.visited.contains($0) })
        }
        dropWatches(stale, in: channel)

        let id = container.descriptor.id
        operations.append(.ready(.listing(id, path, result.listing)))
        // A directory the walk could not open (permissions, out of descriptors) has no watch
        // either: periodic rescans retry it.
        for skipped in result.skipped where ["open", "openat", "fdopendir"].contains(skipped.call) {
            if containers[slot]?.unwatched[skipped.path] == nil { markUnwatched(slot, skipped.path, reason: "\(skipped.call) failed: \(skipped.reason)") }
        }
        let unwatchedNow = containers[slot]?.unwatched.filter { $0.key.starts(with: path) } ?? [:]
        for (subtree, reason) in unwatchedNow.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) })
        where previouslyUnwatched[subtree] == nil {
            notices.append(.subtreeUnwatched(UnwatchedSubtree(container: id, path: subtree, reason: reason)))
        }
        for subtree in previouslyUnwatched.keys.sorted(by: { $0.lexicographicallyPrecedes($1) })
        where unwatchedNow[subtree] == nil {
            let watched = channel.tree.lookup(container: slot, subtree) != nil
            notices.append(watched ? .subtreeWatched(id, subtree) : .subtreeGone(id, subtree))
        }
        for skipped in result.skipped where previouslyUnwatched[skipped.path] == nil {
            recordSkipped(id, skipped.path, reason: "\(skipped.call): \(skipped.reason)")
        }
        return result.listing
    }

    /// Rescans (and tries to watch again) the unwatched subtrees of a container.
    private func rescanUnwatched(_ slot: Int) {
        guard let unwatched = containers[slot]?.unwatched, !unwatched.isEmpty else { return }
        // Outermost first; a rescan of a subtree covers the records below it.
        for path in unwatched.keys.sorted(by: { $0.count < $1.count }) where containers[slot]?.unwatched[path] != nil {
            attach(slot, path)
        }
    }

    func markUnwatched(_ slot: Int, _ path: [String], reason: String) {
        containers[slot]?.unwatched[path] = reason
    }

    // MARK: - Overflow and sync

    /// Rescans the containers of a channel whose queue overflowed (only they can have lost
    /// events); the index reports only real differences.
    private func resync(_ channel: WatchChannel) {
        channel.resync.resynced(at: System.monotonicNanoseconds())
        resyncCount += 1
        // Every sync of these containers registered before this rescan is answered by it.
        let ids = Set(channel.slots.compactMap { containers[$0]?.descriptor.id })
        let waiting = Set(shared.openWaiters().filter { ids.contains($0.waiter.container) }.map(\.id))
        for slot in channel.slots.sorted() {
            guard let container = containers[slot] else { continue }
            if container.available {
                attach(slot, [])
                notices.append(.resync(container.descriptor.id, reason: .queueOverflow))
            } else {
                attachContainer(slot)
            }
        }
        flush()
        shared.acknowledge(sequence: sequence) { id, _ in waiting.contains(id) }
    }

    private func cookieSeen(_ cookie: String, _ slot: Int) {
        // Events were lost and the rescan is still to come: that rescan acknowledges this sync.
        guard !channel(slot).resync.isPending else { return }
        flush()
        rescanUnwatched(slot)
        flush()
        shared.acknowledge(sequence: sequence) { $1.cookie == cookie }
    }

    // MARK: - Building batches

    private func addStat(_ slot: Int, _ path: [String]) {
        if pendingStats.insert(StatKey(container: slot, path: path)).inserted {
            operations.append(.stat(slot, path))
        }
    }

    private func addRemove(_ slot: Int, _ path: [String], isDirectory: Bool) {
        guard let id = containers[slot]?.descriptor.id else { return }
        operations.append(.ready(.remove(id, path)))
        if isDirectory { pendingStats.removeAll() } else { pendingStats.remove(StatKey(container: slot, path: path)) }
    }

    /// Takes the queued stats now.
    ///
    /// Each status (and the entry's tags) is read relative to its parent directory, reached from
    /// the held root one component at a time (``DirectoryResolver``): never through a symlink,
    /// never a path longer than one name.
    private func materialize() {
        var resolvers: [Int: DirectoryResolver] = [:]
        defer { for slot in resolvers.keys { resolvers[slot]?.close() } }
        func entry(_ slot: Int, _ path: [String]) -> FileStat? {
            guard let container = containers[slot], let root = container.root else { return nil }
            if path.isEmpty { return Crawler.restat(root.fd) }
            if resolvers[slot] == nil { resolvers[slot] = DirectoryResolver(root: root.fd) }
            return resolvers[slot]!.entry(path, describing: System.join(container.descriptor.root, path))
        }
        for i in resolvedPrefix..<operations.count {
            switch operations[i] {
            case .stat(let slot, let path):
                guard let id = containers[slot]?.descriptor.id, let stat = entry(slot, path) else {
                    operations[i] = .gone(slot, path)
                    continue
                }
                operations[i] = .ready(.stat(id, path, stat))
            case .move(let slot, let from, let to):
                guard let id = containers[slot]?.descriptor.id else { continue }
                operations[i] = .ready(.move(id, from: from, to: to, stat: entry(slot, to)))
            case .ready, .gone:
                continue
            }
        }
        resolvedPrefix = operations.count
        pendingStats.removeAll()
    }

    /// Emits what was built as one batch.
    func flush() {
        guard !operations.isEmpty || !notices.isEmpty else { return }
        materialize()
        var changes: [FileSystemChange] = []
        changes.reserveCapacity(operations.count)
        for operation in operations {
            if case .ready(let change) = operation { changes.append(change) }
        }
        operations.removeAll(keepingCapacity: true)
        resolvedPrefix = 0
        let batchNotices = notices
        notices.removeAll()
        guard !changes.isEmpty || !batchNotices.isEmpty else { return }
        sequence += 1
        publishStatus()         // first: whoever sees batch N sees a status at least as new
        output.yield(ChangeBatch(sequence: sequence, changes: changes, notices: batchNotices))
    }

    /// Tells subscribers' journal and `status` about an entry that cannot be indexed; an entry
    /// already listed (a rescan finds it again) is not counted twice.
    private func recordSkipped(_ id: ContainerID, _ path: [String], reason: String) {
        notices.append(.skipped(id, path, reason: reason))
        let entry = SkippedEntry(container: id, path: path, reason: reason)
        guard !skippedEntries.contains(entry) else { return }
        skippedTotal += 1
        skippedEntries.append(entry)
        if skippedEntries.count > Self.maxSkippedEntries { skippedEntries.removeFirst() }
    }

    private func publishStatus() {
        var unwatched: [UnwatchedSubtree] = []
        var available: [ContainerID] = []
        var unavailable: [ContainerID] = []
        var roots: [ContainerID: RootLocation] = [:]
        var reasons: [ContainerID: String] = [:]
        for container in containers.values {
            let id = container.descriptor.id
            if container.available, let root = container.root {
                available.append(id)
                roots[id] = RootLocation(path: container.descriptor.root, device: root.device, inode: root.inode)
            } else {
                unavailable.append(id)
                reasons[id] = container.unavailableReason
            }
            for (path, reason) in container.unwatched {
                unwatched.append(UnwatchedSubtree(container: id, path: path, reason: reason))
            }
        }
        unwatched.sort { ($0.container, $0.path.joined(separator: "/")) < ($1.container, $1.path.joined(separator: "/")) }
        let status = WatchStatus(
            watchesUsed: watchesUsed, watchBudget: budget, kernelWatchLimit: kernelLimit, unwatchedSubtrees: unwatched,
            overflowCount: overflowCount, resyncCount: resyncCount, availableContainers: available.sorted(),
            unavailableContainers: unavailable.sorted(), unavailableReasons: reasons, lastSequence: sequence,
            skippedEntries: skippedEntries, skippedTotal: skippedTotal, inotifyInstances: channels.count)
        shared.state.withLock { state in
            state.status = status
            state.roots = roots
        }
    }
}

@available(*, unavailable, message: "owned by the watcher's reader thread")
extension WatcherCore: Sendable {}
