import CSystemd
import CUbiquitySystem
import Glibc
public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
public import UbiquityIndex
public import UbiquityProtocol
public import UbiquityWatch
import UnixSignals

/// The running daemon: the watcher feeding the engine, the socket server, and the service
/// manager glue, as one `ServiceGroup`. SIGTERM/SIGINT stop it gracefully (subscribers get
/// `server.shuttingDown`, the socket file is removed); SIGHUP reloads the containers.
///
/// ```
/// start ─ bind socket ─ load the saved index, if any ─ crawl every container ─ READY=1 ─┬─ STATUS=… every 5 s
///                                                                                       ├─ WATCHDOG=1 while watcher, engine and event loop answer
///                                                                                       └─ SIGHUP: RELOADING=1 → add/remove containers → READY=1
/// SIGTERM ─ STOPPING=1 ─ server.shuttingDown to every connection ─ close ─ unlink socket ─ stop watcher
/// ```
public final class Daemon: Sendable {
    public let settings: DaemonSettings
    public let engine: QueryEngine
    public let watcher: FileWatcher
    public let server: SocketServer
    public let registry: ContainerRegistry
    /// Every container's key-value store.
    public let keyValue: KeyValueStores
    /// Every container's relational stores.
    public let stores: RelationalStores
    /// Published snapshots, when the publish listener is configured.
    let publishing: PublishStore?
    /// The sync engine connection's state, when `[sync]` configures one.
    let syncEngine: SyncEngineMonitor?
    /// Where the index is saved; nil when it is not (``DaemonSettings/indexDirectory``).
    let indexStore: IndexStore?
    /// Whether a saved index was found at start: ``IndexService`` loads it once the socket
    /// listens (a query answered from memory need not wait for it), and the engine waits for it.
    let savedIndexFound: Bool
    /// Why the index is not being saved, while it is not (shown under `degraded` in status).
    let indexProblem = Mutex<String?>(nil)
    let logger: Logger
    private let notifier: SystemdNotifier
    private let started = ContinuousClock.now
    private let ready = Atomic<Bool>(false)
    /// How many of the watcher's skipped entries are already in the journal.
    private let loggedSkipped = Atomic<Int>(0)
    /// The running service group, for ``shutDownGracefully()``; nil before `run()` and after it.
    private let group = Mutex<ServiceGroup?>(nil)

    /// - Parameters:
    ///   - notifier: sd_notify; a no-op outside systemd (no `NOTIFY_SOCKET`).
    public init(settings: DaemonSettings, logger: Logger, notifier: SystemdNotifier = SystemdNotifier()) throws {
        self.settings = settings
        self.logger = logger
        self.notifier = notifier
        // A fixed threshold: allocations of 128 KiB and more (a crawl's listing, a saved index
        // being written, a big answer) get their own mapping, returned to the system when freed.
        // glibc's default raises the threshold to the largest block freed so far (up to 32 MiB),
        // after which such temporaries land in the heap and stay resident: at 100k entries
        // private memory after the first answer was 394 B per entry with it, 229 B without.
        _ = mallopt(M_MMAP_THRESHOLD, Int32(UBQ_MMAP_THRESHOLD))
        let descriptors = settings.containers.map(\.descriptor)
        let opened = settings.indexDirectory.map { Daemon.openIndexStore($0, logger: logger) }
        indexStore = try? opened?.get()
        if case .failure(let problem)? = opened { indexProblem.withLock { $0 = problem.message } }
        savedIndexFound = indexStore?.hasSnapshot ?? false
        let remembered = savedIndexFound ? indexStore.map { Daemon.rememberedAnswers(in: $0, logger: logger) } ?? [] : []
        var watching = settings.watcher
        watching.tagPassFollowsConsumer = true      // the engine tells the watcher what it applied
        // Notifications before the tags a crawl left out (unless the settings say otherwise).
        if watching.tagPassQuietPeriod == .zero { watching.tagPassQuietPeriod = .milliseconds(5) }
        // A restored index takes each crawl's listing whole (it is diffed, never placed part by
        // part): parts would be built and sent for nothing (0.7 s of a restart at 1M entries).
        // (Decided before the load: one that fails leaves a crawl from nothing taken whole, slower.)
        if savedIndexFound { watching.crawlPartEntries = 0 }
        watcher = try FileWatcher(containers: descriptors, configuration: watching)
        keyValue = KeyValueStores(stateDirectory: settings.stateDirectory, quota: settings.keyValueQuota, logger: logger)
        stores = RelationalStores(stateDirectory: settings.stateDirectory, device: keyValue.device, compaction: settings.storeCompaction, logger: logger)
        engine = QueryEngine(containers: descriptors, source: WatcherChangeSource(watcher),
                             limits: {
                                 var l = EngineLimits()
                                 l.pendingItemsPerQuery = settings.limits.pendingItemsPerQuery
                                 l.history = settings.history
                                 return l
                             }(), persistence: indexStore, folderChanges: [keyValue.folderChanges, stores.folderChanges],
                             restoring: savedIndexFound, remembered: remembered)
        registry = ContainerRegistry(settings.containers)
        let engine = self.engine
        let registry = self.registry
        let box = StatusBox()
        publishing = settings.publish.listen.map { _ in PublishStore(stateDirectory: settings.stateDirectory, settings: settings.publish, logger: logger) }
        var context = ServerContext(
            engine: engine, registry: registry, limits: settings.limits, logger: logger,
            status: { peer in await box.daemon?.status(for: peer) ?? Daemon.emptyStatus },
            itemCounts: { await engine.itemCounts() }, keyValue: keyValue, stores: stores)
        context.publishing = publishing
        context.followsSyncEngine = settings.sync != nil
        let syncEngine = settings.sync.map { SyncEngineMonitor(SyncEngineService.initialStatus($0)) }
        self.syncEngine = syncEngine
        if let sync = settings.sync, let syncEngine { context.syncEngineLink = SyncEngineLink(settings: sync, monitor: syncEngine) }
        server = SocketServer(endpoint: settings.endpoint, context: context)
        box.set(self)
    }

    /// The publish listener's service, when one is configured.
    private var publishListener: [ServiceGroupConfiguration.ServiceConfiguration] {
        guard let publishing, let address = settings.publish.listen else { return [] }
        return [.init(service: PublishListener(store: publishing, address: address, logger: logger))]
    }

    /// The sync engine's follower, when one is configured.
    private var syncEngineFollower: [ServiceGroupConfiguration.ServiceConfiguration] {
        guard let syncEngine, let sync = settings.sync else { return [] }
        let containers = settings.containers.map { (id: $0.descriptor.id.rawValue, path: $0.descriptor.root) }
        return [.init(service: SyncEngineService(settings: sync, containers: containers, monitor: syncEngine, engine: engine, logger: logger))]
    }

    /// Runs until SIGTERM/SIGINT (or the task is cancelled).
    public func run() async throws {
        // SIGHUP's default action ends the process: ignore it from the first moment, until the
        // reload handler (UnixSignals) takes it over, so an early `systemctl reload` is not fatal.
        if settings.trapsSignals { signal(SIGHUP, SIG_IGN) }
        // The watcher starts here, before any service runs: the services start in no fixed order,
        // and the socket (bound by one) and readiness (another) ask the watcher to synchronise at
        // once, which an unstarted watcher refuses (watch.stopped). Started from the index service,
        // on a busy pool the socket was bound and readiness asked before that service's first step
        // (an in-process daemon in CI, twice). With a saved index it crawls while the index loads
        // (``loadSavedIndex()``): its batches wait in its stream until the engine runs.
        try watcher.start()
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: IndexService(daemon: self)),
                .init(service: ServerService(server: server)),
                .init(service: ManagerService(daemon: self)),
            ] + publishListener + syncEngineFollower,
            gracefulShutdownSignals: settings.trapsSignals ? [.sigterm, .sigint] : [],
            cancellationSignals: [],
            logger: logger))
        self.group.withLock { $0 = group }
        defer { self.group.withLock { $0 = nil } }
        try await group.run()
        logger.info("stopped")
    }

    /// What SIGTERM does, for a daemon that does not trap signals: subscribers are told, the
    /// socket is closed and removed, and `run()` returns.
    public func shutDownGracefully() async {
        await group.withLock { $0 }?.triggerGracefulShutdown()
    }

    // MARK: - Status

    /// The `status` result and the source of `STATUS=`.
    ///
    /// - Parameter peer: Lists only the containers this peer may read; nil lists all (systemd).
    public func status(for peer: PeerCredentials? = nil) async -> StatusResult {
        let counts = await engine.itemCounts()
        let watch = watcher.status
        let visible = registry.all.filter { peer == nil || Authorization.mayRead($0, peer: peer!) }
        let containers = visible.map { container in
            var info = Session.info(container, items: counts[container.descriptor.id] ?? 0)
            info.available = !watch.unavailableContainers.contains(container.descriptor.id)
            return info
        }
        let visibleIDs = Set(visible.map(\.descriptor.id))
        let unwatched = watch.unwatchedSubtrees.filter { visibleIDs.contains($0.container) }
        var degraded: [String] = []
        if !unwatched.isEmpty {
            degraded.append("\(unwatched.count) subtree(s) unwatched (watch budget); kept correct by rescans")
        }
        let reasons = Dictionary(uniqueKeysWithValues: watch.unavailableReasons.map { ($0.key.rawValue, $0.value) })
        for container in containers where !container.available {
            let reason = reasons[container.id] ?? "\(container.path) missing or unreadable"
            degraded.append("container \(container.id) is unavailable (\(reason))")
        }
        if !ready.load(ordering: .relaxed) { degraded.append("initial crawl in progress") }
        degraded += await keyValue.problems(in: visible)
        if let problem = indexProblem.withLock({ $0 }) {
            degraded.append("the index is not saved (\(problem)): since clocks will not survive a restart")
        }
        let skipped = watch.skippedEntries.filter { visibleIDs.contains($0.container) }
        if !skipped.isEmpty {
            degraded.append("\(skipped.count) entries not indexed (names that are not UTF-8, unreadable directories): see 'skipped'")
        }
        var storeStatus: [StoreStatus] = []
        for store in await stores.openStores() where visibleIDs.contains(where: { $0.rawValue == store.container }) {
            let entry = await store.status()
            storeStatus.append(entry)
            degraded += entry.degradedSentences
        }
        storeStatus.sort { ($0.container, $0.store) < ($1.container, $1.store) }
        var result = StatusResult(
            version: UbiquityVersion.string, pid: Int(getpid()),
            uptimeSeconds: Double((ContinuousClock.now - started).components.seconds), socket: settings.endpoint.path,
            containers: containers, items: containers.reduce(0) { $0 + $1.items },
            watchesUsed: watch.watchesUsed, watchBudget: watch.watchBudget, kernelWatchLimit: watch.kernelWatchLimit,
            unwatched: unwatched.map {
                .init(container: $0.container.rawValue, path: $0.path.joined(separator: "/"), reason: $0.reason)
            },
            overflows: watch.overflowCount, resyncs: watch.resyncCount,
            connections: server.connectionCount, liveQueries: server.liveQueryCount, degraded: degraded)
        result.skipped = skipped.map { .init(container: $0.container.rawValue, path: $0.path.joined(separator: "/"), reason: $0.reason) }
        result.skippedTotal = peer == nil ? watch.skippedTotal : skipped.count
        result.stores = storeStatus
        if let engine = syncEngine?.status {
            result.syncEngine = engine
            if let sentence = engine.degradedSentence { result.degraded.append(sentence) }
        }
        return result
    }

    /// Journals entries the watcher could not index since the last call (the status loop calls
    /// it every few seconds), so none is silently invisible.
    func journalSkippedEntries() {
        let watch = watcher.status
        let new = watch.skippedTotal - loggedSkipped.exchange(watch.skippedTotal, ordering: .relaxed)
        guard new > 0 else { return }
        for entry in watch.skippedEntries.suffix(new) {
            logger.notice("not indexed", metadata: ["container": "\(entry.container)",
                                                    "path": "\(entry.path.joined(separator: "/"))", "reason": "\(entry.reason)"])
        }
        if new > watch.skippedEntries.count {
            logger.notice("more entries not indexed", metadata: ["count": "\(new - watch.skippedEntries.count)"])
        }
    }

    static let emptyStatus = StatusResult(version: UbiquityVersion.string, pid: Int(getpid()), uptimeSeconds: 0, socket: "",
        containers: [], items: 0, watchesUsed: 0, watchBudget: 0, kernelWatchLimit: nil, unwatched: [], overflows: 0,
        resyncs: 0, connections: 0, liveQueries: 0, degraded: ["starting"])

    /// `STATUS=` text: one line a person reads in `systemctl status`.
    func statusLine() async -> String {
        let s = await status()
        var line = "serving \(s.containers.count) containers, \(s.items) items, \(s.connections) clients, "
            + "\(s.liveQueries) live queries, \(s.watchesUsed)/\(s.watchBudget) watches"
        if !s.degraded.isEmpty { line += "; degraded: " + s.degraded.joined(separator: "; ") }
        return line
    }

    // MARK: - Readiness, watchdog, reload

    /// Waits for the initial crawl of every container, then READY=1. Meanwhile, every status
    /// period: `STATUS=crawling…` and, while the item count grows, `EXTEND_TIMEOUT_USEC` so a
    /// large first crawl is not failed by `TimeoutStartSec=`.
    func becomeReady() async throws {
        await server.waitUntilBound()
        let period = settings.statusPeriod
        let progress = Task { [engine] in
            var last = -1
            while !Task.isCancelled {
                let items = await engine.itemCount
                let containers = registry.all.count
                send { n throws(SystemdError) in try n.status("crawling \(containers) containers: \(items) items so far") }
                if items > last {
                    send { n throws(SystemdError) in try n.extendTimeout(by: period * 3) }
                    last = items
                }
                try? await Task.sleep(for: period)
            }
        }
        defer { progress.cancel() }
        try await engine.synchronize()
        _ = try await publishing?.baseURL()      // ready means serving: the publish listener too
        ready.store(true, ordering: .relaxed)
        // The crawl's listings are freed by now; give glibc's arenas back to the system.
        malloc_trim(0)
        let line = await statusLine()
        send { n throws(SystemdError) in try n.ready(status: line) }
        // uptime_ms: from the daemon's start to here, the first crawl (or a restart's check of
        // its saved index) applied: the daemon's own time, for whoever measures a start without
        // a client's timing in it.
        logger.info("ready", metadata: ["status": "\(line)", "uptime_ms": "\((ContinuousClock.now - started).milliseconds)"])
        // After the crawl's tag pass: the snapshot then holds the tags (the journal does not start
        // with the whole pass). Without hurrying the pass: it reads when the file
        // system is quiet (or a second after it last read), so notifications come first.
        // A shutdown meanwhile ends the wait: stopping must not wait for the pass (at 5M entries
        // it takes tens of seconds), and the final snapshot saves what there is (a start from it
        // crawls again, and its own pass reads every directory's tags).
        await cancelWhenGracefulShutdown { [watcher] in await watcher.statusReached { $0.tagPassPending == 0 } }
        if Task.isShuttingDownGracefully { return }
        try? await engine.synchronize()
        // From here on a crash keeps the clocks handed out: the journal continues this snapshot.
        await saveIndex(reason: "first crawl")
        // Once more, after the tag pass, the first snapshot and the first answers: what they freed
        // after the trim above stays in glibc's arenas otherwise (measured at 100k entries: up to
        // 5 MB, 50 bytes per entry, after a first answer of 10k long paths; 0.3-0.8 MB usually).
        malloc_trim(0)
    }

    /// True when the watcher's reader thread, the engine and the server's event loop all answer
    /// within `timeout`: only then does the watchdog ping.
    func isMakingProgress(timeout: Duration) async -> Bool {
        let watcher = self.watcher, engine = self.engine, loop = server.eventLoop
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                guard await watcher.ping() else { return false }
                _ = await engine.queryCount
                guard (try? await loop.submit({}).get()) != nil else { return false }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// SIGHUP: re-reads the containers and applies the difference without dropping subscribers.
    func reloadContainers() async {
        send { n throws(SystemdError) in try n.reloading(status: "reloading the configuration") }
        defer { send { n throws(SystemdError) in try n.ready(status: "reloaded") } }
        let next: [ResolvedContainer]
        do {
            guard let reload = settings.reload else { return }
            next = try reload()
        } catch {
            logger.error("reload failed; keeping the current containers", metadata: ["error": "\(error)"])
            return
        }
        let current = registry.all
        let currentIDs = Set(current.map(\.descriptor.id))
        let nextIDs = Set(next.map(\.descriptor.id))
        for container in next where !currentIDs.contains(container.descriptor.id)
            || current.first(where: { $0.descriptor.id == container.descriptor.id })?.descriptor != container.descriptor {
            await engine.addContainer(container.descriptor)
            watcher.addContainer(container.descriptor)
            logger.info("container added", metadata: ["container": "\(container.descriptor.id)", "path": "\(container.descriptor.root)"])
        }
        registry.replace(with: next)
        await keyValue.containersMoved(next)
        // A container whose owner or group changed: every subscriber's right to it is checked
        // again, and one who lost it is told `container.forbidden` and hears nothing more.
        for container in next {
            guard let before = current.first(where: { $0.descriptor.id == container.descriptor.id }),
                  before.ownerUID != container.ownerUID || before.groupGID != container.groupGID else { continue }
            await engine.announce(.accessChanged(container.descriptor.id))
            logger.info("container access changed", metadata: [
                "container": "\(container.descriptor.id)", "owner": "\(container.ownerUID)",
                "group": "\(container.groupGID.map(String.init) ?? "-")"])
        }
        for container in current where !nextIDs.contains(container.descriptor.id) {
            await engine.containerRemoved()
            watcher.removeContainer(container.descriptor.id)
            await engine.announce(.containerUnavailable(container.descriptor.id))
            logger.info("container removed", metadata: ["container": "\(container.descriptor.id)"])
        }
        // Wait until the added containers are crawled, so a query started now sees them whole.
        do { try await engine.synchronize() } catch {
            logger.warning("after reload, the watcher did not synchronise", metadata: ["error": "\(error)"])
        }
        logger.info("reloaded", metadata: ["containers": "\(next.count)"])
    }

    /// Sends one notification; a failure is logged, never fatal (systemd may be restarting).
    func send(_ body: (SystemdNotifier) throws(SystemdError) -> Bool) {
        do { _ = try body(notifier) } catch {
            logger.warning("sd_notify failed", metadata: ["error": "\(error)"])
        }
    }
}

/// Lets the server's status closure reach the daemon that owns the server (set once, after init).
private final class StatusBox: Sendable {
    private let value = Mutex<Daemon?>(nil)
    func set(_ daemon: Daemon) { value.withLock { $0 = daemon } }
    var daemon: Daemon? { value.withLock { $0 } }
}
