import Glibc
import Logging
import NIOPosix
import Synchronization
import UbiquityIndex
import UbiquityJSON
import UbiquityProtocol
import UbiquityStore
import UbiquityStoreFiles
import UbiquitySystem

/// Every container's relational stores (docs/stores.md), opened on first use and kept open:
/// each a ``ContainerStore`` over a ``DeviceStore`` whose folder is
/// `<container>/.ubiquity-stores/<store>` and whose cache and schema in force are this daemon's
/// own, under `<state directory>/stores/<container>/<store>/` (`cache.sqlite`, `schema.json`, and
/// `forgotten.json` once a device is forgotten).
///
/// A store is known once a client opened it with its schema: the schema is kept, so the store
/// opens again (after a restart, for `store.describe` or `store.fetch`) without the client.
/// Imports follow the watcher: when the engine applies a batch that changed a container's
/// `.ubiquity-stores` (``folderChanges``), each open store of that container imports what arrived.
public final class RelationalStores: Sendable {
    /// This device's id (the key-value store's), or why there is none.
    private let device: Result<String, FileProblem>
    private let stateDirectory: String
    private let logger: Logger
    let limits: StoreLimits
    /// When each store writes snapshots and calls a device silent (`[stores]` in the configuration).
    let compaction: CompactionPolicy
    /// Open stores and stores being opened, by `container/store`: one task each, so that two
    /// requests opening one store at once open it once.
    private let stores = Mutex<[String: Task<(ContainerStore, created: Bool), any Error>]>([:])
    private let handles = Atomic<Int>(0)
    private let registry = Mutex<ContainerRegistry?>(nil)

    init(stateDirectory: String, device: Result<String, FileProblem>, limits: StoreLimits = StoreLimits(),
         compaction: CompactionPolicy = CompactionPolicy(), logger: Logger) {
        self.stateDirectory = stateDirectory
        self.device = device
        self.limits = limits
        self.compaction = compaction
        self.logger = logger
    }

    func attach(_ registry: ContainerRegistry) { self.registry.withLock { $0 = registry } }

    /// A new handle for a connection's `store.open`, unique in this daemon.
    func nextHandle() -> Int { handles.add(1, ordering: .relaxed).newValue }

    /// The store `name` of `container`: open already, or opened with `schema` (the client's: it
    /// is created when it does not exist), or with the schema kept from an earlier open.
    ///
    /// - Returns: the store, and whether this call made it (`created`) or found it.
    /// - Throws: `store.invalidName`, `store.unknown` (no schema given nor kept), `server.busy`
    ///   (the container holds its most stores), `store.storageFailed`.
    func store(_ name: String, of container: ResolvedContainer, creatingWith schema: Schema?) async throws -> (ContainerStore, created: Bool) {
        guard StoreLayout.isStoreName(name) else {
            throw StoreRequestError(.invalidName, "'\(name)' cannot name a store: use 1 to 64 of A-Z a-z 0-9 _, not starting with a digit",
                                    details: ["store": .string(name)])
        }
        let id = container.descriptor.id.rawValue, key = id + "/" + name
        let (task, first): (Task<(ContainerStore, created: Bool), any Error>, Bool) = stores.withLock { stores in
            if let existing = stores[key] { return (existing, false) }
            let task = Task { try await self.open(name, of: container, schema: schema) }
            stores[key] = task
            return (task, true)
        }
        do {
            let (store, created) = try await task.value
            return (store, first && created)
        } catch {
            stores.withLock { stores in
                if let current = stores[key], current == task { stores[key] = nil }
            }
            throw error
        }
    }

    /// Opens a store: its kept schema, else `schema`; the `DeviceStore` with it (importing every
    /// segment present); the schema kept.
    private func open(_ name: String, of container: ResolvedContainer, schema given: Schema?) async throws -> (ContainerStore, created: Bool) {
        let device: DeviceID
        switch self.device {
        case .success(let raw):
            guard let id = DeviceID(raw) else { throw StoreRequestError(.storageFailed, "this daemon's device id '\(raw)' cannot name a store's device") }
            device = id
        case .failure(let problem):
            throw StoreRequestError(.storageFailed, "relational stores are unavailable: this daemon has no device id (\(problem.message))")
        }
        let id = container.descriptor.id.rawValue
        let folder = "\(stateDirectory)/stores/\(id)/\(name)"
        let limit = limits.maxStoresPerContainer
        let stateDirectory = self.stateDirectory
        // The kept schema, read off the cooperative pool (it waits for the disk).
        let kept: Result<Schema?, StoreRequestError> = try await NIOThreadPool.singleton.runIfActive {
            RelationalStores.keptSchema(stateDirectory: stateDirectory, container: id, store: name, storesLimit: limit, creating: given != nil)
        }
        let schema: Schema
        var created = false
        switch kept {
        case .failure(let error): throw error
        case .success(let found?): schema = found
        case .success(nil):
            guard let given else {
                throw StoreRequestError(.unknownStore, "no store '\(name)' is known in container '\(id)': open it with its schema first (store.open)",
                                        details: ["store": .string(name), "container": .string(id)])
            }
            schema = given
            created = true
        }
        guard let root = registry.withLock({ $0 })?.heldRoot(of: container) ?? HeldRoot.open(container.descriptor.root) else {
            throw ProtocolError(.containerUnavailable, "the directory of container '\(id)' is missing", details: ["container": .string(id)])
        }
        let logger = self.logger, owner = container.ownerUID, group = container.groupGID, compaction = self.compaction
        let reopen: @Sendable (Schema) async throws -> DeviceStore = { schema in
            try await RelationalStores.openFiles(schema: schema, device: device, root: root, store: name, folder: folder, stateDirectory: stateDirectory,
                                                 container: id, owner: owner, group: group, compaction: compaction, logger: logger)
        }
        let keepForgotten: @Sendable ([DeviceID: Int64]) async throws -> Void = { forgotten in
            let problem: String? = try await NIOThreadPool.singleton.runIfActive {
                RelationalStores.keep(forgotten: forgotten, stateDirectory: stateDirectory, container: id, store: name)
            }
            if let problem {
                throw StoreRequestError(.storageFailed, "the devices forgotten by store '\(name)' could not be kept: \(problem); nothing was forgotten",
                                        details: ["store": .string(name)])
            }
        }
        let files = try await reopen(schema)
        let store = ContainerStore(container: id, name: name, device: device, schema: schema, files: files, limits: limits, logger: logger,
                                   reopen: reopen, keepForgotten: keepForgotten)
        await store.logTransitions()
        logger.info("store opened", metadata: ["container": "\(id)", "store": "\(name)", "version": "\(schema.version)"])
        return (store, created)
    }

    /// Keeps `schema` as the one in force and opens the store's files and cache with it.
    private static func openFiles(schema: Schema, device: DeviceID, root: HeldRoot, store: String, folder: String, stateDirectory: String,
                                  container: String, owner: UInt32?, group: UInt32?, compaction: CompactionPolicy,
                                  logger: Logger) async throws -> DeviceStore {
        let (problem, forgotten): (String?, [DeviceID: Int64]) = try await NIOThreadPool.singleton.runIfActive {
            let problem = handOverFolders(root: root, store: store, device: device, owner: owner, group: group)
                ?? keep(schema, stateDirectory: stateDirectory, container: container, store: store)
            return (problem, keptForgotten(stateDirectory: stateDirectory, container: container, store: store, logger: logger))
        }
        if let problem { throw StoreRequestError(.storageFailed, "the schema of store '\(store)' could not be kept: \(problem)") }
        var policy = compaction
        policy.forgotten = forgotten
        do {
            return try await DeviceStore.open(schema: schema, device: device, container: Directory(borrowing: root.fd, path: root.path),
                                              store: store, databasePath: folder + "/cache.sqlite", compaction: policy)
        } catch let error as StoreError {
            throw error
        } catch {
            logger.error("store open failed", metadata: ["container": "\(container)", "store": "\(store)", "error": "\(error)"])
            throw StoreRequestError(.storageFailed, "store '\(store)' of container '\(container)' could not be opened: \(error)",
                                    details: ["store": .string(store)])
        }
    }

    /// As root, makes the store's folders in the container (`.ubiquity-stores/<store>/logs/<device>`,
    /// `acks` and `snapshots/<device>`) belong to the container's owner and group, as the key-value
    /// folder does, so that the owner's sync engine can add other devices' logs and snapshots beside
    /// this one's. Nothing when
    /// the daemon is not root; nil, or what failed.
    private static func handOverFolders(root: HeldRoot, store: String, device: DeviceID, owner: UInt32?, group: UInt32?) -> String? {
        guard geteuid() == 0, owner != nil || group != nil else { return nil }
        var parent = Directory(borrowing: root.fd, path: root.path)
        func ensure(_ name: String, in directory: Directory) -> String? {
            if case .failure(let problem) = ContainerDirectory.ensure(name, in: directory.fd, parentPath: directory.path, mode: 0o755,
                                                                      owner: owner, group: group) { return problem.message }
            return nil
        }
        for name in [StoreLayout.folder, store, StoreLayout.logs, device.rawValue] {
            if let problem = ensure(name, in: parent) { return problem }
            do { parent = try parent.openDirectory(name) } catch { return "\(error)" }
            if name == store {
                for own in [StoreLayout.acks, StoreLayout.snapshots] { if let problem = ensure(own, in: parent) { return problem } }
                do {
                    if let problem = ensure(device.rawValue, in: try parent.openDirectory(StoreLayout.snapshots)) { return problem }
                } catch {
                    return "\(error)"
                }
            }
        }
        return nil
    }

    // MARK: The kept schema (blocking: on a thread pool)

    static let schemaFile = "schema.json"
    /// The most bytes of a kept schema read back.
    static let maxSchemaBytes = 4 << 20

    /// The folder of a container's stores in the state directory, made when `create`.
    private static func storesFolder(stateDirectory: String, container: String, create: Bool) throws -> Directory? {
        let state: Directory
        switch DurableFiles.openStateDirectory(stateDirectory) {
        case .success(let directory): state = directory
        case .failure(let problem): throw StoreRequestError(.storageFailed, problem.message)
        }
        if create { _ = try state.makeDirectory("stores", mode: 0o700) }
        guard (try? state.status(of: Array("stores".utf8))) != nil else { return nil }
        let stores = try state.openDirectory("stores")
        if create { _ = try stores.makeDirectory(container, mode: 0o700) }
        guard (try? stores.status(of: Array(container.utf8))) != nil else { return nil }
        return try stores.openDirectory(container)
    }

    /// The schema kept for `store`, nil when there is none; refuses a new store past `storesLimit`.
    static func keptSchema(stateDirectory: String, container: String, store: String, storesLimit: Int, creating: Bool) -> Result<Schema?, StoreRequestError> {
        do {
            guard let folder = try storesFolder(stateDirectory: stateDirectory, container: container, create: false),
                  (try? folder.status(of: Array(store.utf8))) != nil else {
                if creating, let folder = try storesFolder(stateDirectory: stateDirectory, container: container, create: false),
                   folder.textNames().count >= storesLimit {
                    return .failure(StoreRequestError(.storageFailed, "container '\(container)' holds \(storesLimit) stores, the most the daemon keeps for one container",
                                                      details: ["limit": .integer(Int64(storesLimit))]))
                }
                return .success(nil)
            }
            let directory = try folder.openDirectory(store)
            switch DurableFiles.read(schemaFile, in: directory, limit: maxSchemaBytes) {
            case nil: return .success(nil)
            case .failure(let problem)?: return .failure(StoreRequestError(.storageFailed, "the kept schema of '\(store)': \(problem.message)"))
            case .success(let bytes)?:
                do {
                    return .success(try StoreWire.schema(try JSONLine.decode(bytes)))
                } catch {
                    return .failure(StoreRequestError(.storageFailed, "the kept schema of '\(store)' does not read: \(error); open the store with its schema again"))
                }
            }
        } catch let error as StoreRequestError {
            return .failure(error)
        } catch {
            return .failure(StoreRequestError(.storageFailed, "the kept schema of '\(store)': \(error)"))
        }
    }

    /// Writes `schema` durably as the one in force; nil, or what failed.
    private static func keep(_ schema: Schema, stateDirectory: String, container: String, store: String) -> String? {
        do {
            guard let folder = try storesFolder(stateDirectory: stateDirectory, container: container, create: true) else { return "its folder vanished" }
            _ = try folder.makeDirectory(store, mode: 0o700)
            let directory = try folder.openDirectory(store)
            try directory.replace(schemaFile, with: Array(JSONLine.encodeLine(StoreWire.json(schema))))
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: The devices forgotten (blocking: on a thread pool)

    static let forgottenFile = "forgotten.json"
    /// The most bytes of the devices forgotten read back (a device id and a number each).
    static let maxForgottenBytes = 1 << 20

    /// The devices forgotten by `store` (``ContainerStore/forget(_:)``): each with the modification
    /// time of its acknowledgement file when it was, ms since 1970. None when there is no file; a
    /// file that cannot be read forgets nothing (compaction waits, which is safe) and is logged.
    static func keptForgotten(stateDirectory: String, container: String, store: String, logger: Logger) -> [DeviceID: Int64] {
        guard let folder = try? storesFolder(stateDirectory: stateDirectory, container: container, create: false),
              (try? folder.status(of: Array(store.utf8))) != nil, let directory = try? folder.openDirectory(store) else { return [:] }
        let bytes: [UInt8]
        switch DurableFiles.read(forgottenFile, in: directory, limit: maxForgottenBytes) {
        case nil: return [:]
        case .success(let read)?: bytes = read
        case .failure(let problem)?:
            logger.error("store forgotten devices unreadable", metadata: ["container": "\(container)", "store": "\(store)", "reason": "\(problem.message)"])
            return [:]
        }
        guard case .object(let object)? = try? JSONLine.decode(bytes) else {
            logger.error("store forgotten devices unreadable", metadata: ["container": "\(container)", "store": "\(store)", "reason": "not a JSON object"])
            return [:]
        }
        var forgotten: [DeviceID: Int64] = [:]
        for (key, value) in object {
            if let device = DeviceID(key), case .integer(let mark) = value, mark >= 0 { forgotten[device] = mark }
        }
        return forgotten
    }

    /// Writes the devices forgotten by `store` durably; nil, or what failed.
    static func keep(forgotten: [DeviceID: Int64], stateDirectory: String, container: String, store: String) -> String? {
        do {
            guard let folder = try storesFolder(stateDirectory: stateDirectory, container: container, create: true) else { return "its folder vanished" }
            _ = try folder.makeDirectory(store, mode: 0o700)
            let directory = try folder.openDirectory(store)
            let object = JSONValue.object(Dictionary(uniqueKeysWithValues: forgotten.map { ($0.key.rawValue, JSONValue.integer($0.value)) }))
            try directory.replace(forgottenFile, with: Array(JSONLine.encodeLine(object)))
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: Imports driven by the watcher

    /// What the engine tells, as it applies a batch, of the containers whose stores' folder it changed.
    var folderChanges: FolderChanges {
        FolderChanges(folder: StoreLayout.folder) { [self] containers in filesChanged(in: containers) }
    }

    /// The stores' folder of `containers` changed (another device's segment arrived, say): each
    /// open store of them imports, in a task of its own, at most one at a time.
    func filesChanged(in containers: Set<ContainerID>) {
        let prefixes = Set(containers.map { $0.rawValue + "/" })
        let open = stores.withLock { stores in stores.filter { key, _ in prefixes.contains { key.hasPrefix($0) } }.map(\.value) }
        for task in open {
            Task {
                guard let (store, _) = try? await task.value, store.askForImport() else { return }
                await store.importWhileAsked()
            }
        }
    }

    /// Every open store, for `status`.
    func openStores() async -> [ContainerStore] {
        var open: [ContainerStore] = []
        for task in stores.withLock({ Array($0.values) }) {
            if let (store, _) = try? await task.value { open.append(store) }
        }
        return open
    }
}
