import CSystemd
import Glibc
import Logging
import NIOPosix
import ServiceLifecycle
import UbiquityIndex
import UbiquityJSON
import UbiquityProtocol
import UbiquitySystem

/// Follows the configured sync engine (Syncthing) for as long as the daemon runs: reads its
/// device id and shared folders, maps the folders to the containers served here by path, then
/// long-polls its event stream (`/rest/events`), reading its state again whenever the stream
/// cannot be trusted (``EngineEventCursor``). Everything it learns goes to ``SyncEngineMonitor``
/// (what `status` shows); every change of condition is journalled once. It runs on NIO's event
/// loops beside the socket server and never touches the query engine or the watcher, so nothing
/// here can slow the file-watching path. An engine that is down, refuses the key or does not
/// share a container is a state with a reason, retried with a growing pause (1 s up to 30 s).
struct SyncEngineService: Service {
    let settings: SyncEngineSettings
    /// Each container served here: its id and directory.
    let containers: [(id: String, path: String)]
    let monitor: SyncEngineMonitor
    /// Where each shared container's sync facts go (every item's sync attributes follow from them).
    let engine: QueryEngine
    let logger: Logger

    /// How long one long poll waits for events (Syncthing answers an empty list then).
    static let pollSeconds = 30
    /// Paths read from one need list (`/rest/db/need`, `/rest/db/remoteneed`); past it, the rest
    /// of that list is not known and the journal says so.
    static let maxNeedPaths = 100_000
    /// The events after which the sync facts are read again.
    static let factEvents: Set<String> = [
        "LocalIndexUpdated", "RemoteIndexUpdated", "ItemFinished", "ItemStarted", "FolderCompletion", "DeviceConnected",
        "DeviceDisconnected", "DevicePaused", "DeviceResumed", "FolderErrors", "StateChanged", "FolderSummary", "ConfigSaved",
    ]
    static let maxPause: Duration = .seconds(30)
    /// Items whose sync attributes one update of the facts changed, from which the memory that
    /// change took is given back to the system at once (``update(_:)``).
    static let trimAfterChangedItems = 10_000

    /// The status before the first attempt.
    static func initialStatus(_ settings: SyncEngineSettings) -> SyncEngineStatus {
        SyncEngineStatus(engine: settings.engine, address: settings.address?.description ?? settings.configXML ?? "?", state: .connecting)
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await follow() }
    }

    /// Why one attempt ended.
    enum Stop: Error {
        case unreachable(String)
        case unauthorized(String)
        case failed(String)
        /// Another run of the engine answered (``EngineEventCursor``): read everything again at once.
        case restarted
    }

    private func follow() async {
        var pause: Duration = .seconds(1)
        while !Task.isCancelled {
            do {
                try await attempt(onConnected: { pause = .seconds(1) })
            } catch let stop as Stop {
                record(stop)
                // A restart seen while the engine answers: its state is read again at once, and
                // until then every item keeps what the previous run said (no flicker to unknown).
                if case .restarted = stop { continue }
                await forgetFacts()
            } catch {
                if Task.isCancelled { return }
                record(.failed(String(describing: error)))
                await forgetFacts()
            }
            do { try await Task.sleep(for: pause) } catch { return }
            pause = min(pause * 2, Self.maxPause)
        }
    }

    /// One connection: from reading the endpoint to the event stream failing or another run of
    /// the engine answering.
    private func attempt(onConnected: () -> Void) async throws {
        let (client, key) = try await endpoint()
        let system = try await object(client, key, "/rest/system/status", timeout: .seconds(10))
        let device = Self.text(system["myID"])
        // "connected" only once the facts are read: a client that waits for it (and asks
        // `storage`, or reads the sync attributes) must not see the values of no engine.
        var shared = try await readFolders(client, key, device: device, announce: false)
        // Items changed before this read count as known to the engine; later changes only once
        // an index event names them (IndexedPaths).
        // Transfers in flight (progress events), laid over every read of the facts.
        var progress = TransferProgress()
        var (baseline, read) = try await readFacts(client, key, shared: shared, device: device, progress: &progress)
        var indexed = IndexedPaths()
        announceConnected()
        onConnected()
        // What the connection events since the last full read said of each device (see
        // DeviceConnectionEvents): laid over every read of the connections until the next resync.
        var connectionEvents: [String: Bool] = [:]
        let newest = try await events(client, key, "/rest/events?since=0&limit=1", timeout: .seconds(10))
        var cursor = EngineEventCursor(run: Self.text(system["startTime"]), last: newest.map(\.id).max() ?? 0)
        monitor.update { $0.lastEvent = cursor.last }
        while !Task.isCancelled {
            let batch = try await events(client, key, "/rest/events?since=\(cursor.last)&timeout=\(Self.pollSeconds)",
                                         timeout: .seconds(Self.pollSeconds + 15))
            let verdict: EngineEventCursor.Verdict
            if batch.isEmpty {
                // A quiet stream may be a restarted engine whose new ids have not passed ours yet:
                // its start time tells.
                let now = try await object(client, key, "/rest/system/status", timeout: .seconds(10))
                verdict = cursor.take([], run: Self.text(now["startTime"]))
            } else {
                verdict = cursor.take(batch.map(\.id))
            }
            switch verdict {
            case .restarted:
                monitor.update { $0.resyncs += 1 }
                throw Stop.restarted
            case .lost:
                monitor.update { $0.resyncs += 1 }
                logger.notice("sync engine events were lost (more came than its buffer keeps); reading its state again",
                              metadata: ["engine": "\(settings.engine)"])
                connectionEvents = [:]
                indexed = IndexedPaths()
                progress = TransferProgress()
                shared = try await readFolders(client, key, device: device)
                (baseline, read) = try await readFacts(client, key, shared: shared, device: device, progress: &progress)
            case .inOrder:
                await removeReplacedPlaceholders(batch, shared: shared)
                let moved = progress.take(batch)
                if moved { await askTotalBlocks(client, key, &progress) }
                guard batch.contains(where: { Self.factEvents.contains($0.type) }) else {
                    // Progress alone: the facts last read, with the new percentages (those lists
                    // are older than the events: they forget nothing).
                    if moved { await publish(read, progress: &progress, listsReadAfterEvents: false) }
                    break
                }
                if batch.contains(where: { $0.type == "ConfigSaved" }) { shared = try await readFolders(client, key, device: device) }
                connectionEvents.merge(DeviceConnectionEvents.latest(batch.map { ($0.type, $0.device) })) { $1 }
                indexed.take(batch, receivedAt: System.wallClockNanoseconds())
                read = try await readFacts(client, key, shared: shared, device: device, connectionEvents: connectionEvents,
                                           baseline: baseline, indexed: indexed, progress: &progress).facts
            }
            monitor.update { $0.lastEvent = cursor.last }
        }
    }

    /// The client and the API key, from the settings and Syncthing's `config.xml`.
    private func endpoint() async throws -> (EngineHTTPClient, String) {
        let (client, key) = try await Self.endpoint(settings)
        monitor.update { $0.address = client.address.description }
        return (client, key)
    }

    /// The client and the API key `settings` lead to (reading Syncthing's `config.xml` when they
    /// name it); throws ``Stop`` saying what is missing.
    static func endpoint(_ settings: SyncEngineSettings) async throws -> (EngineHTTPClient, String) {
        var address = settings.address
        var key = settings.apiKey
        if let file = settings.configXML, address == nil || key == nil {
            let gui = try await NIOThreadPool.singleton.runIfActive { try Self.readGUIConfig(file) }
            if address == nil {
                guard let written = gui.address else { throw Stop.failed("\(file) names no GUI address (<gui><address>); set 'address' in [sync]") }
                switch EngineAddress.parse(written) {
                case .success(let parsed): address = parsed
                case .failure(let problem): throw Stop.failed("the GUI address in \(file), '\(written)', cannot be used: \(problem.description)")
                }
            }
            if key == nil {
                guard let found = gui.apiKey else { throw Stop.unauthorized("\(file) holds no API key (<gui><apikey>); set 'api_key' in [sync]") }
                key = found
            }
        }
        guard let address, let key else { throw Stop.failed("[sync] needs 'address' and 'api_key', or 'config_xml'") }
        return (EngineHTTPClient(address: address), key)
    }

    static func readGUIConfig(_ file: String) throws -> SyncthingGUIConfig {
        let parent = PathBytes.directory(of: file), name = PathBytes.lastComponent(of: file)
        let directoryPath = parent.isEmpty ? "/" : parent
        let directory: Directory
        do { directory = try Directory.open(directoryPath, followingLink: true) } catch {
            throw Stop.failed("cannot open the folder of \(file): \(error)")
        }
        switch directory.read(name, limit: SyncthingGUIConfig.maxBytes) {
        case nil: throw Stop.failed("\(file) does not exist")
        case .failure(let refusal)?: throw Stop.failed("cannot read \(file): \(refusal)")
        case .success(let bytes)?: return SyncthingGUIConfig(xml: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// A shared container: its folder id and the other devices sharing it.
    struct Shared: Sendable {
        var container: String
        var folder: String
        var devices: [String]
    }

    /// The engine's folders, matched to the containers served here by path.
    @discardableResult
    private func readFolders(_ client: EngineHTTPClient, _ key: String, device: String?, announce: Bool = true) async throws -> [Shared] {
        let answer = try await json(client, key, "/rest/config/folders", timeout: .seconds(10))
        guard case .array(let folders) = answer else { throw Stop.failed("/rest/config/folders did not answer a list") }
        let byPath = Dictionary(folders.compactMap { folder -> (String, (String, [String]))? in
            guard case .object(let fields) = folder, let id = Self.text(fields["id"]), let path = Self.text(fields["path"]) else { return nil }
            var devices: [String] = []
            if case .array(let entries)? = fields["devices"] {
                for case .object(let entry) in entries {
                    if let other = Self.text(entry["deviceID"]), other != device { devices.append(other) }
                }
            }
            return (Self.normalised(path), (id, devices))
        }, uniquingKeysWith: { first, _ in first })
        var found: [Shared] = []
        var shared: [SyncEngineStatus.SharedFolder] = []
        var unshared: [String] = []
        for container in containers {
            if let (folder, devices) = byPath[Self.normalised(container.path)] {
                shared.append(.init(container: container.id, folder: folder))
                found.append(Shared(container: container.id, folder: folder, devices: devices))
            } else {
                unshared.append(container.id)
            }
        }
        let before = monitor.update {
            $0.device = device
            $0.folders = shared
            $0.unshared = unshared
        }
        if announce && (before.unshared != unshared || before.folders != shared) { announceConnected(force: true) }
        await update(unshared.compactMap { container in (try? ContainerID(container)).map { ($0, nil) } })
        return found
    }

    /// Reads what the engine says of every shared container's items — what this device needs,
    /// what each other device needs, which are connected, what failed — and hands it to the
    /// index as each container's ``ContainerSyncFacts``.
    ///
    /// - Parameters:
    ///   - baseline: when the last full read began (nil: this one is, and its time is returned):
    ///     items changed since count as known to the engine only where `indexed` says so.
    ///   - progress: the transfers in flight: what the lists show finished is forgotten, the
    ///     rest laid over the facts handed on.
    /// - Returns: when the last full read began, and each container's facts as read (without
    ///   the progress), to lay later progress over.
    private func readFacts(_ client: EngineHTTPClient, _ key: String, shared: [Shared], device: String?,
                           connectionEvents: [String: Bool] = [:], baseline: Int64? = nil,
                           indexed: IndexedPaths = IndexedPaths(),
                           progress: inout TransferProgress) async throws -> (readAt: Int64, facts: [FolderFacts]) {
        // Taken before asking: whatever changes while the lists are read counts as not yet known.
        let readAt = baseline ?? System.wallClockNanoseconds()
        guard !shared.isEmpty else { return (readAt, []) }
        var read: [FolderFacts] = []
        let connections = try await object(client, key, "/rest/system/connections", timeout: .seconds(10))
        var connected: Set<String> = []
        if case .object(let byDevice)? = connections["connections"] {
            for (id, state) in byDevice {
                if case .object(let fields) = state, case .bool(true)? = fields["connected"] { connected.insert(id) }
            }
        }
        connected = DeviceConnectionEvents.apply(connectionEvents, to: connected)
        for folder in shared {
            let encoded = Self.queryEscaped(folder.folder)
            let need = try await object(client, key, "/rest/db/need?folder=\(encoded)&perpage=\(Self.maxNeedPaths)", timeout: .seconds(30))
            var localNeed: Set<ExactName> = []
            for list in ["progress", "queued", "rest"] { localNeed.formUnion(Self.names(need[list])) }
            var remoteNeed: [String: Set<ExactName>] = [:]
            for other in folder.devices {
                let answer = try await object(client, key, "/rest/db/remoteneed?folder=\(encoded)&device=\(Self.queryEscaped(other))&perpage=\(Self.maxNeedPaths)",
                                              timeout: .seconds(30))
                remoteNeed[other] = Self.names(answer["files"])
            }
            var pullErrors: [ExactName: String] = [:]
            if let errors = try? await object(client, key, "/rest/folder/errors?folder=\(encoded)", timeout: .seconds(10)),
               case .array(let entries)? = errors["errors"] {
                for case .object(let entry) in entries {
                    if let path = Self.text(entry["path"]) { pullErrors[ExactName(path)] = Self.text(entry["error"]) ?? "error" }
                }
            }
            var facts = ContainerSyncFacts(known: true, devices: folder.devices, connected: connected.intersection(folder.devices),
                                           localNeed: localNeed, remoteNeed: remoteNeed, pullErrors: pullErrors, readAt: readAt,
                                           indexedAt: indexed.paths(of: folder.folder))
            if localNeed.count >= Self.maxNeedPaths || remoteNeed.values.contains(where: { $0.count >= Self.maxNeedPaths }) {
                // A list cut short would make the rest look in sync: unknown says the truth.
                logger.warning("sync facts unknown: a need list is longer than the daemon reads",
                               metadata: ["container": "\(folder.container)", "limit": "\(Self.maxNeedPaths)"])
                facts = .unknown
            }
            guard let id = try? ContainerID(folder.container) else { continue }
            read.append(FolderFacts(container: id, folder: folder.folder, facts: facts))
        }
        await publish(read, progress: &progress, listsReadAfterEvents: true)
        return (readAt, read)
    }

    /// A shared container's facts as last read, before any progress is laid over them.
    struct FolderFacts: Sendable {
        var container: ContainerID
        var folder: String
        var facts: ContainerSyncFacts
    }

    /// Hands each container's facts to the index with the transfers in flight laid over them.
    /// When the need lists were read after the events taken, progress they show finished (no
    /// longer needed) is forgotten first; older lists cannot tell.
    private func publish(_ read: [FolderFacts], progress: inout TransferProgress, listsReadAfterEvents: Bool) async {
        var updates: [(ContainerID, ContainerSyncFacts?)] = []
        for entry in read {
            var facts = entry.facts
            if facts.known {
                if listsReadAfterEvents {
                    _ = progress.retain(folder: entry.folder, localNeed: facts.localNeed, remoteNeed: facts.remoteNeed)
                }
                facts.downloadPercents = progress.downloadPercents(folder: entry.folder)
                facts.uploadPercents = progress.uploadPercents(folder: entry.folder)
            }
            updates.append((entry.container, facts))
        }
        await update(updates)
    }

    /// Hands the engine each container's new facts (nil: not shared, a single machine). A
    /// container's first facts change every item, and the engine holds each one's state while it
    /// tells the queries: at 100k items 18 MiB of small blocks, freed when it returns but kept by
    /// glibc's arenas until the daemon next trimmed (RssAnon at the first answer 31 MiB; 15 MiB
    /// with this trim; 12 MiB for the same daemon without `[sync]`). A large change gives them back now.
    private func update(_ updates: [(ContainerID, ContainerSyncFacts?)]) async {
        var changed = 0
        for (container, facts) in updates { changed += await engine.updateSyncFacts(facts, for: container) }
        if changed >= Self.trimAfterChangedItems { malloc_trim(0) }
    }

    /// Asks the engine the block count of each file another device has begun to fetch from here
    /// (`/rest/db/file`: `global.numBlocks`), at most ``TransferProgress/maxTotalsPerBatch`` per
    /// batch. A count it does not give is recorded as unknown (that upload shows 0 %), never
    /// asked again while the fetch lasts, and never ends the connection.
    private func askTotalBlocks(_ client: EngineHTTPClient, _ key: String, _ progress: inout TransferProgress) async {
        for (folder, path) in progress.missingTotals() {
            var blocks: Int64 = 0
            if let answer = try? await object(client, key, "/rest/db/file?folder=\(Self.queryEscaped(folder))&file=\(Self.queryEscaped(path.string))",
                                              timeout: .seconds(10)),
               case .object(let global)? = answer["global"], case .integer(let count)? = global["numBlocks"] {
                blocks = count
            }
            progress.setTotalBlocks(blocks, folder: folder, path: path)
        }
    }

    /// An evicted item the engine has fetched again: its placeholder goes (the item's file won
    /// in the index already). One `fstatat` or two per finished file, on a thread of NIO's pool.
    private func removeReplacedPlaceholders(_ batch: [EngineEvent], shared: [Shared]) async {
        let finished: [(root: String, relative: String)] = batch.compactMap { event in
            guard let item = event.finishedItem, let folder = event.folder,
                  let container = shared.first(where: { $0.folder == folder })?.container,
                  let root = containers.first(where: { $0.id == container })?.path else { return nil }
            return (root, item)
        }
        guard !finished.isEmpty else { return }
        let removed = (try? await NIOThreadPool.singleton.runIfActive {
            finished.filter { Self.removePlaceholder(root: $0.root, relative: $0.relative) }.map(\.relative)
        }) ?? []
        for path in removed { logger.info("an evicted item is back: its placeholder is removed", metadata: ["path": "\(path)"]) }
    }

    static func removePlaceholder(root: String, relative: String) -> Bool {
        guard let path = try? RelativePath(relative), let container = try? Directory.open(root),
              case .success(let fd) = Beneath.openParent(of: path, in: container.fd) else { return false }
        let directory = Directory(adopting: fd, path: PathBytes.directory(of: root + "/" + relative))
        return PlaceholderFile.removeIfReplaced(path.name, in: directory)
    }

    /// The state becomes `connected`, and the journal says so when it was not (or, with
    /// `force`, when the shared folders changed).
    private func announceConnected(force: Bool = false) {
        let before = monitor.update {
            $0.state = .connected
            $0.reason = nil
        }
        guard force || before.state != .connected else { return }
        let status = monitor.status
        logger.notice("sync engine connected", metadata: [
            "engine": "\(settings.engine)", "device": "\(status.device ?? "?")",
            "shared": "\(status.folders.map { "\($0.container)=\($0.folder)" }.joined(separator: ","))",
            "unshared": "\(status.unshared.joined(separator: ","))"])
    }

    /// Shared containers become unknown while the engine cannot be asked.
    private func forgetFacts() async {
        await update(monitor.status.folders.compactMap { folder in (try? ContainerID(folder.container)).map { ($0, .unknown) } })
    }

    /// The `name` of every file in a need list (`[{"name": …}, …]`), by its bytes.
    static func names(_ list: JSONValue?) -> Set<ExactName> {
        guard case .array(let entries)? = list else { return [] }
        var out: Set<ExactName> = []
        for case .object(let entry) in entries {
            if let name = text(entry["name"]) { out.insert(ExactName(name)) }
        }
        return out
    }

    /// A query parameter's value, percent-encoded but for unreserved characters.
    static func queryEscaped(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// A path as Syncthing and the configuration may both write it: no trailing slash.
    static func normalised(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    private func record(_ stop: Stop) {
        let (state, reason): (SyncEngineStatus.State, String?) = switch stop {
        case .unreachable(let reason): (.unreachable, reason)
        case .unauthorized(let reason): (.unauthorized, reason)
        case .failed(let reason): (.failed, reason)
        case .restarted: (.connecting, "the engine restarted")
        }
        let before = monitor.update {
            $0.state = state
            $0.reason = reason
        }
        guard before.state != state || before.reason != reason else { return }
        if case .restarted = stop {
            logger.notice("sync engine restarted; reading its state again", metadata: ["engine": "\(settings.engine)"])
        } else {
            logger.warning("sync engine \(state.rawValue): \(reason ?? "")", metadata: ["engine": "\(settings.engine)"])
        }
    }

    // MARK: - Requests

    private func json(_ client: EngineHTTPClient, _ key: String, _ target: String, timeout: Duration) async throws -> JSONValue {
        let response: EngineHTTPClient.Response
        do {
            response = try await client.get(target, apiKey: key, timeout: timeout)
        } catch let error as EngineHTTPError {
            throw Stop.unreachable(error.reason)
        }
        switch response.status {
        case 200: break
        case 401, 403:
            throw Stop.unauthorized("\(settings.engine) refused the API key (HTTP \(response.status)); check 'api_key' or 'config_xml' in [sync]")
        default:
            throw Stop.failed("\(settings.engine) answered HTTP \(response.status) to GET \(EngineHTTPClient.pathOnly(target))")
        }
        do {
            return try JSONLine.decode(response.body)
        } catch {
            throw Stop.failed("\(settings.engine)'s answer to GET \(EngineHTTPClient.pathOnly(target)) is not JSON (\(error))")
        }
    }

    private func object(_ client: EngineHTTPClient, _ key: String, _ target: String, timeout: Duration) async throws -> [String: JSONValue] {
        guard case .object(let fields) = try await json(client, key, target, timeout: timeout) else {
            throw Stop.failed("\(settings.engine)'s answer to GET \(EngineHTTPClient.pathOnly(target)) is not an object")
        }
        return fields
    }

    /// The events in one answer of `/rest/events`, in the order given.
    private func events(_ client: EngineHTTPClient, _ key: String, _ target: String, timeout: Duration) async throws -> [EngineEvent] {
        let answer = try await json(client, key, target, timeout: timeout)
        guard case .array(let events) = answer else { return [] }
        return events.compactMap(EngineEvent.init(json:))
    }

    static func text(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }
}
