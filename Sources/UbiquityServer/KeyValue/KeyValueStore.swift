import Glibc
import Logging
import UbiquityKeyValue
import UbiquityProtocol

/// One container's key-value store: its files on disk, their merge in memory, and its subscribers.
///
/// Reads come from memory. A write is acknowledged only once this device's file is durably
/// replaced (``KeyValueFiles/write(_:to:in:)``); the memory changes only then. Other devices'
/// files are read again whenever the watcher sees the store's folder change (``reload()``).
actor KeyValueStore {
    let container: String
    let root: String
    private let owner: UInt32?
    private let group: UInt32?
    private let logger: Logger
    private var state: KVStoreState
    private var loaded = false
    /// Files that could not be read, by name, with why: skipped, logged once, shown in `status`.
    private(set) var problems: [String: String] = [:]
    private var subscribers: [Int: KeyValueSubscriber] = [:]

    init(container: String, root: String, owner: UInt32?, group: UInt32?, device: String, quota: KVQuota, logger: Logger) {
        self.container = container
        self.root = root
        self.owner = owner
        self.group = group
        self.logger = logger
        state = KVStoreState(device: device, quota: quota)
    }

    var quota: KVQuota { state.quota }

    func value(forKey key: String) throws(KeyValueError) -> KVValue? {
        try ensureLoaded()
        return state.value(forKey: key)
    }

    func all() throws(KeyValueError) -> (values: [String: KVValue], usage: KVUsage) {
        try ensureLoaded()
        return (state.values, state.usage)
    }

    /// Sets (`value`) or removes (nil) `key` for `connection`; returns whether the key had a value.
    func write(_ value: KVValue?, forKey key: String, connection: UInt64) throws(KeyValueError) -> Bool {
        try ensureLoaded()
        let existed = state.value(forKey: key) != nil
        let own: KVReplica
        do { own = try state.writing(value, forKey: key, now: KeyValueStore.now()) } catch {
            if error.code == .quotaExceeded { notify(.quotaViolationChange, keys: [key], except: nil) }
            throw error
        }
        guard let fd = try openDirectory(create: true) else { throw KeyValueError(.storageFailed, "the store's folder vanished") }
        defer { close(fd) }
        if let failure = KeyValueFiles.write(own.bytes, to: state.ownFile, in: fd) {
            logger.error("key-value write failed", metadata: ["container": "\(container)", "key": "\(key)", "error": "\(failure)"])
            throw KeyValueError(.storageFailed, "the store of '\(container)' could not be written (\(failure)); nothing changed",
                                details: ["container": .string(container)])
        }
        problems[state.ownFile] = nil
        let changed = state.replace([state.ownFile: own])
        notify(.serverChange, keys: changed, except: connection)
        return existed
    }

    /// Reads every other device's file again and tells subscribers what changed. Returns the keys.
    @discardableResult
    func reload() -> [String] {
        guard loaded else { try? ensureLoaded(); return [] }
        let fd: Int32
        do { fd = try openDirectory(create: false) ?? -1 } catch { return [] }
        defer { if fd >= 0 { close(fd) } }
        let hadOthers = state.hasOtherDevices, wasOver = state.isOverQuota
        let changed = state.replace(readFiles(fd, skipping: state.ownFile))
        guard !changed.isEmpty else { return [] }
        notify(hadOthers || !state.hasOtherDevices ? .serverChange : .initialSyncChange, keys: changed, except: nil)
        if state.isOverQuota && !wasOver { notify(.quotaViolationChange, keys: changed, except: nil) }
        return changed
    }

    func subscribe(_ subscriber: KeyValueSubscriber) throws(KeyValueError) {
        try ensureLoaded()
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
    func adopt(_ moved: [KeyValueSubscriber], keys: Set<String>) {
        try? ensureLoaded()
        for subscriber in moved { subscribers[subscriber.store] = subscriber }
        notify(.accountChange, keys: keys.union(state.values.keys).sorted(), except: nil)
    }

    /// Loads on first use; a folder that cannot be made or read is `kv.storageFailed`.
    func ensureLoaded() throws(KeyValueError) {
        guard !loaded else { return }
        let fd = try openDirectory(create: false) ?? -1
        defer { if fd >= 0 { close(fd) } }
        state.replace(readFiles(fd, skipping: nil))
        loaded = true
        logger.info("key-value store loaded", metadata: [
            "container": "\(container)", "keys": "\(state.usage.keys)", "files": "\(state.files.count)",
            "damaged": "\(problems.count)"])
    }

    /// The content of every store file that reads well, noting the problems of the others. A
    /// file that is gone or unreadable is left out, so the store keeps what it last read of it:
    /// a sync engine replaces a file by deleting it and renaming the new one into place, and
    /// that moment must not look like the other device's keys were removed. `fd` -1: the folder
    /// does not exist (yet): no files.
    private func readFiles(_ fd: Int32, skipping: String?) -> [String: KVReplica?] {
        var result: [String: KVReplica?] = [:]
        var present: Set<String> = []
        for name in fd < 0 ? [] : KeyValueFiles.names(in: fd) where name != skipping {
            present.insert(name)
            switch KeyValueFiles.read(name, in: fd) {
            case nil: present.remove(name)
            case .success(let bytes)?:
                do {
                    result[name] = try KVReplica(bytes: bytes)
                    problems[name] = nil
                } catch { damaged(name, error.reason) }
            case .failure(let problem)?: damaged(name, problem.reason)
            }
        }
        for name in problems.keys where !present.contains(name) && name != skipping { problems[name] = nil }
        return result
    }

    private func damaged(_ name: String, _ reason: String) {
        if problems[name] != reason {
            logger.error("key-value file damaged; skipped", metadata: [
                "container": "\(container)", "file": "\(KeyValueFiles.directory)/\(name)", "reason": "\(reason)"])
        }
        problems[name] = reason
    }

    /// The store's folder (made when `create`); nil when it does not exist and not `create`.
    private func openDirectory(create: Bool) throws(KeyValueError) -> Int32? {
        switch KeyValueFiles.openDirectory(root: root, create: create, owner: owner, group: group) {
        case nil: return nil
        case .success(let fd)?: return fd
        case .failure(let problem)?:
            throw KeyValueError(.storageFailed, "the store of '\(container)' cannot be opened: \(problem.message)",
                                details: ["container": .string(container)])
        }
    }

    private func notify(_ reason: KVChangeReason, keys: [String], except connection: UInt64?) {
        guard !keys.isEmpty else { return }
        for subscriber in subscribers.values where subscriber.connection != connection {
            subscriber.sink.yield(KeyValueChange(store: subscriber.store, container: container, reason: reason.rawValue, keys: keys))
        }
    }

    /// Microseconds since 1970 (CLOCK_REALTIME).
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }
}
