import Glibc
public import Logging
import NIOPosix
import Synchronization
import UbiquityIndex
public import UbiquityKeyValue
import UbiquityProtocol

/// Every container's key-value store (docs/kv-store.md), made on first use, reloaded when the
/// engine applies a batch that changed a store's folder (``folderChanges``).
public final class KeyValueStores: Sendable {
    /// This device's id, or why there is none (then every key-value request fails clearly).
    let device: Result<String, FileProblem>
    /// Where the device id is kept (the relational stores keep their caches there too).
    let stateDirectory: String
    public let quota: KVQuota
    private let logger: Logger
    private let stores = Mutex<[String: ContainerKeyValueStore]>([:])
    private let subscriptions = Atomic<Int>(0)
    /// Where every store's file operations run (``ContainerKeyValueStore``): two threads of the daemon's
    /// own, so that reading hostile files or waiting for a disk never holds Swift's cooperative
    /// pool. Started when the first store is made (``store(for:)``), not before: a daemon whose
    /// clients never use a key-value store has neither thread (each costs its stack's pages and
    /// its own malloc arena); it then lives as long as the daemon.
    private let io: NIOThreadPool
    /// Where the containers' held roots come from (``attach(_:)``); until then a store opens its
    /// root once when first asked (tests that make stores without a server).
    private let registry = Mutex<ContainerRegistry?>(nil)

    /// - Parameter stateDirectory: Where the device id is kept (``DeviceIdentity``).
    public init(stateDirectory: String, quota: KVQuota, logger: Logger) {
        self.quota = quota
        self.logger = logger
        self.stateDirectory = stateDirectory
        device = DeviceIdentity.load(stateDirectory: stateDirectory)
        io = NIOThreadPool(numberOfThreads: KeyValueStores.ioThreads)
        switch device {
        case .success(let id): logger.info("key-value device id", metadata: ["device": "\(id)", "state": "\(stateDirectory)"])
        case .failure(let problem): logger.error("no key-value device id; the key-value store is unavailable", metadata: ["error": "\(problem.message)"])
        }
    }

    /// The default: state directory from the environment, Apple's quotas.
    public convenience init(logger: Logger) {
        self.init(stateDirectory: DeviceIdentity.stateDirectory(environment: ProcessEnvironment.values(of: ["STATE_DIRECTORY", "XDG_STATE_HOME", "HOME"])), quota: KVQuota(), logger: logger)
    }

    /// Takes the containers' held roots from `registry` (the server's).
    func attach(_ registry: ContainerRegistry) { self.registry.withLock { $0 = registry } }

    /// The store of `container`, made (not yet loaded) on first use.
    func store(for container: ResolvedContainer) throws(KeyValueError) -> ContainerKeyValueStore {
        let id: String
        switch device {
        case .success(let value): id = value
        case .failure(let problem):
            throw KeyValueError(.storageFailed, "the key-value store is unavailable: this daemon has no device id (\(problem.message))")
        }
        let key = container.descriptor.id.rawValue
        return stores.withLock { stores in
            if let store = stores[key], store.root == container.descriptor.root { return store }
            let registry = self.registry.withLock { $0 }
            let fallback = Mutex<HeldRoot?>(nil)
            let rootDirectory: @Sendable () -> HeldRoot? = {
                if let registry { return registry.heldRoot(of: container) }
                return fallback.withLock { held in
                    if held == nil { held = HeldRoot.open(container.descriptor.root) }
                    return held
                }
            }
            // Starts the threads the first time; does nothing after (NIOThreadPool.start).
            io._start(threadNamePrefix: Self.ioThreadName)
            let store = ContainerKeyValueStore(container: key, root: container.descriptor.root, rootDirectory: rootDirectory, owner: container.ownerUID,
                                      group: container.groupGID, device: id, quota: quota, io: io, logger: logger)
            stores[key] = store
            return store
        }
    }

    /// Ends subscription `number` of the store of `container`, wherever the container lives now.
    func unsubscribe(_ number: Int, container: String) async {
        await stores.withLock { $0[container] }?.unsubscribe(number)
    }

    /// After a reload: a container that now lives in another directory has another store. Its
    /// subscribers move to the new one and are told `accountChange` with every key of either.
    func containersMoved(_ containers: [ResolvedContainer]) async {
        for container in containers {
            let key = container.descriptor.id.rawValue
            guard let old = stores.withLock({ $0[key] }), old.root != container.descriptor.root,
                  let new = try? store(for: container) else { continue }
            let (subscribers, keys) = await old.handOver()
            await new.adopt(subscribers, keys: keys)
            logger.info("key-value store moved", metadata: ["container": "\(key)", "path": "\(container.descriptor.root)",
                                                           "subscribers": "\(subscribers.count)"])
        }
    }

    /// A new subscription number, unique in this daemon.
    func nextSubscription() -> Int { subscriptions.add(1, ordering: .relaxed).newValue }

    /// What the engine tells, as it applies a batch, of the containers whose store folder it changed.
    var folderChanges: FolderChanges {
        FolderChanges(folder: KeyValueFiles.directory) { [self] containers in filesChanged(in: containers) }
    }

    /// The store folders of `containers` changed (another device's file arrived, say). Each
    /// store reloads in a task of its own, at most one at a time (a change during a reload makes
    /// it read once more after), so one container's reload never waits for another's; a store
    /// nobody has used yet loads when first asked instead.
    func filesChanged(in containers: Set<ContainerID>) {
        for container in containers {
            guard let store = stores.withLock({ $0[container.rawValue] }), store.askForReload() else { continue }
            Task { await store.reloadWhileAsked() }
        }
    }

    /// Whether `container`'s root may hold the store's folder: false only when its held root
    /// says there is no entry of that name (one `fstatat`; whatever it is, the store finds out
    /// when it reads it). True without a registry (stores made without a server).
    private func mayHaveFolder(_ container: ResolvedContainer) -> Bool {
        guard let root = registry.withLock({ $0 })?.heldRoot(of: container) else { return true }
        var status = stat()
        return fstatat(root.fd, KeyValueFiles.directory, &status, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT
    }

    /// Threads of ``io``.
    static let ioThreads = 2
    /// The names of ``io``'s threads, with their number after it (`KV-IO-#0`): what `ps -T` and
    /// the tests see.
    public static let ioThreadName = "KV-IO-#"

    /// `status`'s lines about the stores of `containers` (loading them first): files skipped,
    /// entries left out; or why there is no key-value store at all.
    func problems(in containers: [ResolvedContainer]) async -> [String] {
        if case .failure(let problem) = device, !containers.isEmpty {
            return ["the key-value store is unavailable: \(problem.message)"]
        }
        var lines: [String] = []
        for container in containers {
            // A container without the folder has nothing to report: its store is not made for
            // `status` (nor the io threads started); a client's first request makes it.
            guard stores.withLock({ $0[container.descriptor.id.rawValue] }) != nil || mayHaveFolder(container),
                  let store = try? store(for: container) else { continue }
            try? await store.ensureLoaded()
            lines += await store.problemLines()
        }
        return lines
    }
}
