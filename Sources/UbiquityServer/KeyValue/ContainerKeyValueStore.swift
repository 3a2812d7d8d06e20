import Glibc
import Logging
import NIOPosix
import Synchronization
import UbiquityKeyValue
import UbiquityProtocol
import UbiquitySystem

/// One container's key-value store: its files on disk, their merge in memory, and its subscribers.
///
/// Reads come from memory. A write is acknowledged only once this device's file is durably
/// replaced (``KeyValueFiles/write(_:to:in:)``); the memory changes only then. Other devices'
/// files are read again whenever the watcher sees the store's folder change (``reload()``).
///
/// Every file operation — opening the folder, reading and parsing files anyone who can write the
/// container controls, writing and fsyncing — runs on `io`, threads of the daemon's own, never on
/// Swift's cooperative pool: a slow disk or a hostile container holds one of those threads at most,
/// never the threads every other store and connection runs on. Loads, reloads and writes of one
/// store take turns (``takeTurn()``), so each sees the last one's result.
actor ContainerKeyValueStore {
    let container: String
    /// The container's root path: which store this is (a container that moves has another).
    let root: String
    /// The container's held root descriptor, every file operation's base (``ContainerRegistry``).
    private let rootDirectory: @Sendable () -> HeldRoot?
    private let owner: UInt32?
    private let group: UInt32?
    private let logger: Logger
    private let io: NIOThreadPool
    private let limits: KVReadLimits
    private var state: KVStoreState
    private var loaded = false
    /// What each file kept in `state` costs against `limits`.
    private var costs: [String: KeyValueFiles.Cost] = [:]
    /// Files that could not be read, by name, with why: skipped, logged once, shown in `status`.
    private(set) var problems: [String: String] = [:]
    /// The report of entries stamped ahead of this device's clock last logged, by file.
    private var loggedAhead: [String: String] = [:]
    private var subscribers: [Int: KeyValueSubscriber] = [:]
    /// Whether a load, reload or write is under way; who waits for its turn.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Reloads the watcher asked for: whether one runs, and whether another was asked for since
    /// it started (``KeyValueStores/filesChanged(in:)`` keeps one task per store at most).
    private let reloads = Mutex(RunsAsked())

    init(container: String, root: String, rootDirectory: @escaping @Sendable () -> HeldRoot?, owner: UInt32?, group: UInt32?,
         device: String, quota: KVQuota, io: NIOThreadPool, logger: Logger) {
        self.container = container
        self.root = root
        self.rootDirectory = rootDirectory
        self.owner = owner
        self.group = group
        self.logger = logger
        self.io = io
        limits = KVReadLimits(quota: quota)
        state = KVStoreState(device: device, quota: quota)
    }

    var quota: KVQuota { state.quota }

    func value(forKey key: String) async throws(KeyValueError) -> KVValue? {
        try await ensureLoaded()
        return state.value(forKey: key)
    }

    func all() async throws(KeyValueError) -> (values: [String: KVValue], usage: KVUsage) {
        try await ensureLoaded()
        return (state.values, state.usage)
    }

    /// Sets (`value`) or removes (nil) `key` for `connection`; returns whether the key had a value.
    func write(_ value: KVValue?, forKey key: String, connection: UInt64) async throws(KeyValueError) -> Bool {
        try await ensureLoaded()
        await takeTurn()
        defer { endTurn() }
        let now = ContainerKeyValueStore.now()
        let existed = state.value(forKey: key) != nil
        let own: KVReplica
        do { own = try state.writing(value, forKey: key, now: now) } catch {
            if error.code == .quotaExceeded { notify(.quotaViolationChange, keys: [key], except: nil) }
            throw error
        }
        let bytes = own.bytes
        guard bytes.count <= limits.fileBytes else {
            throw KeyValueError(.storageFailed, "nothing was written: this device's file of '\(container)' would be \(bytes.count) bytes, "
                                + "more than the \(limits.fileBytes) a store file may have (other devices would skip it); remove keys first",
                                details: ["container": .string(container)])
        }
        let (root, owner, group, name) = (rootDirectory(), self.owner, self.group, state.ownFile)
        let failure: String? = await onIO { () -> String? in
            switch KeyValueFiles.openDirectory(root: root, create: true, owner: owner, group: group) {
            case nil: return "the store's folder vanished"
            case .failure(let problem)?: return problem.message
            case .success(let directory)?:
                do {
                    try KeyValueFiles.write(bytes, to: name, in: directory)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
        } ?? "the daemon is stopping"
        if let failure {
            logger.error("key-value write failed", metadata: ["container": "\(container)", "key": "\(key)", "error": "\(failure)"])
            throw KeyValueError(.storageFailed, "the store of '\(container)' could not be written (\(failure)); nothing changed",
                                details: ["container": .string(container)])
        }
        problems[name] = nil
        costs[name] = KeyValueFiles.Cost(bytes: bytes.count, values: KVReplica.measure(bytes, limits: limits).values)
        let changed = state.replace([name: own], now: now)
        reportAhead()
        notify(.serverChange, keys: changed, except: connection)
        // By construction the write is later than every entry that counts; never say "stored"
        // for a value the key does not have.
        guard state.merged[key] == own.entries[key] else {
            throw KeyValueError(.storageFailed, "the write of '\(key)' was stored but another device's entry wins over it",
                                details: ["container": .string(container), "key": .string(key)])
        }
        return existed
    }

    /// Reads every other device's file again and tells subscribers what changed. Returns the keys.
    @discardableResult
    func reload() async -> [String] {
        guard loaded else { try? await ensureLoaded(); return [] }
        await takeTurn()
        defer { endTurn() }
        guard let reading = await read(skippingOwn: true) else { return [] }
        let hadOthers = state.hasOtherDevices, wasOver = state.isOverQuota
        let changed = record(reading, skipping: state.ownFile)
        if state.isOverQuota && !wasOver { notify(.quotaViolationChange, keys: state.overQuota, except: nil) }
        guard !changed.isEmpty else { return [] }
        notify(hadOthers || !state.hasOtherDevices ? .serverChange : .initialSyncChange, keys: changed, except: nil)
        return changed
    }

    /// Asks for a reload (the watcher saw the folder change): true when the caller is to run
    /// ``reloadWhileAsked()``, false when one runs already and will read again after this one.
    nonisolated func askForReload() -> Bool { reloads.withLock { $0.ask() } }

    /// Reloads until no more reloads were asked for meanwhile.
    func reloadWhileAsked() async {
        repeat { await reload() } while reloads.withLock({ $0.ended() })
    }

    func subscribe(_ subscriber: KeyValueSubscriber) async throws(KeyValueError) {
        try await ensureLoaded()
        subscribers[subscriber.store] = subscriber
    }

    func unsubscribe(_ store: Int) { subscribers[store] = nil }

    /// Hands every subscriber over (the container moved: ``KeyValueStores/containersMoved(_:)``),
    /// with the keys this store had.
    func handOver() -> (subscribers: [KeyValueSubscriber], keys: Set<String>) {
        defer { subscribers.removeAll() }
        return (Array(subscribers.values), Set(state.values.keys))
    }

    /// Takes the subscribers of the store this container had before it moved, and tells them
    /// `accountChange` with every key of either store.
    func adopt(_ moved: [KeyValueSubscriber], keys: Set<String>) async {
        try? await ensureLoaded()
        for subscriber in moved { subscribers[subscriber.store] = subscriber }
        notify(.accountChange, keys: keys.union(state.values.keys).sorted(), except: nil)
    }

    /// Loads on first use; a folder that cannot be made or read is `kv.storageFailed`. Temporary
    /// files of this device's own left behind (a crash, or planted) are removed then.
    func ensureLoaded() async throws(KeyValueError) {
        guard !loaded else { return }
        await takeTurn()
        defer { endTurn() }
        guard !loaded else { return }
        let reading: KeyValueFiles.Reading?
        switch await onIO({ [root = rootDirectory(), limits, own = state.ownFile] in
            KeyValueFiles.read(root: root, own: own, skippingOwn: false, cleaning: true, retained: [:], limits: limits)
        }) {
        case nil: throw KeyValueError(.storageFailed, "the daemon is stopping")
        case .failure(let problem)??: throw unopenable(problem)
        case .success(let value)??: reading = value
        case .some(nil): reading = nil
        }
        if let reading { record(reading, skipping: nil) }
        loaded = true
        logger.info("key-value store loaded", metadata: [
            "container": "\(container)", "keys": "\(state.usage.keys)", "files": "\(state.files.count)",
            "damaged": "\(problems.count)", "ahead": "\(state.ahead.count)"])
    }

    /// `status`'s lines about this store: files skipped (damaged or past a bound), entries left
    /// out for being stamped ahead of this device's clock.
    func problemLines() -> [String] {
        var lines: [String] = []
        for (name, reason) in problems.sorted(by: { $0.key < $1.key }) {
            lines.append("key-value file \(KeyValueFiles.directory)/\(name) of container \(container) is skipped: \(reason)")
        }
        for (name, text) in aheadReports() { lines.append("key-value file \(KeyValueFiles.directory)/\(name) of container \(container) \(text)") }
        if let over = overQuotaReport() { lines.append(over) }
        return lines
    }

    // MARK: - Reading

    /// The folder read on `io` (this device's file left out when `skippingOwn`); nil when it
    /// cannot be read now (the store keeps what it has; a failure is logged).
    private func read(skippingOwn: Bool) async -> KeyValueFiles.Reading? {
        let result = await onIO { [root = rootDirectory(), limits, costs, own = state.ownFile] in
            KeyValueFiles.read(root: root, own: own, skippingOwn: skippingOwn, cleaning: false, retained: costs, limits: limits)
        }
        switch result {
        case .success(let reading)??: return reading
        case .failure(let problem)??:
            logger.error("key-value folder unreadable; kept as last read", metadata: ["container": "\(container)", "error": "\(problem.message)"])
            return nil
        case .some(nil), nil: return nil
        }
    }

    /// Records a reading: the files, their costs, the problems of the others (logged once each).
    @discardableResult
    private func record(_ reading: KeyValueFiles.Reading, skipping: String?) -> [String] {
        for (name, reason) in reading.problems where problems[name] != reason {
            logger.error("key-value file skipped", metadata: [
                "container": "\(container)", "file": "\(KeyValueFiles.directory)/\(name)", "reason": "\(reason)"])
        }
        for name in problems.keys where name != skipping && (!reading.present.contains(name) || reading.problems[name] == nil) {
            problems[name] = nil
        }
        for (name, reason) in reading.problems { problems[name] = reason }
        for name in costs.keys where name != skipping && reading.costs[name] == nil { costs[name] = nil }
        for (name, cost) in reading.costs { costs[name] = cost }
        let wasOver = state.overQuota
        let changed = state.replace(reading.changes, now: ContainerKeyValueStore.now())
        reportAhead()
        if state.overQuota != wasOver, let report = overQuotaReport() {
            logger.error("key-value keys past the quotas; left out", metadata: ["container": "\(container)", "reason": "\(report)"])
        }
        return changed
    }

    /// Entries stamped ahead of this device's clock, by file: what `status` and the journal say.
    private func aheadReports() -> [(String, String)] {
        let byFile = Dictionary(grouping: state.ahead, by: \.file)
        return byFile.keys.sorted().map { name in
            let entries = byFile[name] ?? []
            let shown = entries.prefix(3).map { "'\($0.key)' (\(KVDate.format($0.modified / 1000)))" }.joined(separator: ", ")
            return (name, "has \(entries.count) \(entries.count == 1 ? "entry" : "entries") stamped more than "
                    + "\(KVStoreState.maxAhead / 1_000_000) s ahead of this device's clock, left out until then: \(shown)"
                    + (entries.count > 3 ? ", …" : ""))
        }
    }

    /// Keys other devices' files hold past the store's quotas, left out (``KVStoreState/overQuota``).
    private func overQuotaReport() -> String? {
        let keys = state.overQuota
        guard !keys.isEmpty else { return nil }
        let shown = keys.prefix(3).map { "'\($0)'" }.joined(separator: ", ") + (keys.count > 3 ? ", …" : "")
        return "the key-value store of container \(container) leaves out \(keys.count) \(keys.count == 1 ? "key" : "keys") that other devices' "
            + "files hold past its quotas (at most \(state.quota.maxKeys) keys, \(state.quota.maxBytes) bytes, keys of \(state.quota.maxKeyBytes) bytes; "
            + "the oldest values are kept): \(shown)"
    }

    /// Journals what changed in ``aheadReports()``.
    private func reportAhead() {
        let reports = aheadReports()
        guard reports.count != loggedAhead.count || reports.contains(where: { loggedAhead[$0.0] != $0.1 }) else { return }
        for (name, text) in reports where loggedAhead[name] != text {
            logger.error("key-value entries stamped ahead of this device's clock; left out", metadata: [
                "container": "\(container)", "file": "\(KeyValueFiles.directory)/\(name)", "reason": "\(text)"])
        }
        loggedAhead = Dictionary(reports, uniquingKeysWith: { a, _ in a })
    }

    private func unopenable(_ problem: FileProblem) -> KeyValueError {
        KeyValueError(.storageFailed, "the store of '\(container)' cannot be opened: \(problem.message)",
                      details: ["container": .string(container)])
    }

    /// Runs `body` on `io`; nil when the pool no longer runs (the daemon is stopping).
    private func onIO<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        try? await io.runIfActive(body)
    }

    // MARK: - Turns

    /// Waits until no load, reload or write of this store is under way, and starts one.
    private func takeTurn() async {
        guard busy else { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
        // The turn was handed over by endTurn(): busy stayed true.
    }

    private func endTurn() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }

    private func notify(_ reason: KVChangeReason, keys: [String], except connection: UInt64?) {
        guard !keys.isEmpty else { return }
        for subscriber in subscribers.values where subscriber.connection != connection {
            // What a subscriber that does not read has pending is bounded by what the store may hold.
            subscriber.outbox.post(KeyValueChange(store: subscriber.store, container: container, reason: reason.rawValue, keys: keys),
                                   keyLimit: state.quota.maxKeys)
        }
    }

    /// Microseconds since 1970 (CLOCK_REALTIME).
    static func now() -> Int64 { System.wallClockNanoseconds() / 1000 }
}
