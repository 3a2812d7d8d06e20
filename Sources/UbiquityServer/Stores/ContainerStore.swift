import Logging
import Synchronization
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore
import UbiquityStoreFiles

/// One relational store of one container as the daemon serves it (docs/stores.md): its files and
/// cache (``DeviceStore``), the schema in force, and the connections that opened it.
///
/// Saves, fetches, imports and schema upgrades take turns (``takeTurn()``): an upgrade reopens
/// the cache with the newer schema, and nothing may use the old one meanwhile. Every wait for the
/// disk happens on the ``DeviceStore``'s own queue, never on this actor or the cooperative pool.
///
/// Whatever changes the rows — a save of any connection, an import of other devices' segments
/// started by the watcher (``importWhileAsked()``) — is posted to every subscriber's outbox as a
/// `store.changed` (a connection is not told of its own saves).
actor ContainerStore {
    let container: String
    let name: String
    let device: DeviceID
    private(set) var schema: Schema
    private var files: DeviceStore
    /// Opens the store's files and cache with a schema, and keeps that schema as the one in force.
    private let reopen: @Sendable (Schema) async throws -> DeviceStore
    /// Keeps the devices forgotten (all of them) durably in the daemon's state directory.
    private let keepForgotten: @Sendable ([DeviceID: Int64]) async throws -> Void
    private let logger: Logger
    private let limits: StoreLimits
    private var subscribers: [Int: StoreSubscriber] = [:]
    /// Live fetches of this store by number: told of every change (their own connection's saves
    /// too), which their outbox then asks for as an event (``liveFetchEvent(_:)``).
    private var liveFetches: [Int: LiveFetchState] = [:]
    /// When this daemon last imported (or wrote, for this device) each device's segment, ms since 1970.
    private var lastImports: [DeviceID: Int64] = [:]
    /// The sync states last seen, to log each change of condition once (``SyncStateTransition``).
    private var lastStates: [DeviceSyncState] = []
    /// The snapshot problems and the compaction failure already logged (each logged once).
    private var loggedSnapshotProblems: Set<SnapshotProblem> = []
    /// The last import pass's stop after committed imports, as last logged (``logCompaction()``).
    private var lastImportFailure: String?
    /// The tombstone counts last logged (``logCompaction()``).
    private var loggedTombstones = (floored: 0, repairs: 0)
    private var lastCompactionFailure: String?
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Imports the watcher asked for: whether one runs, and whether another was asked for since.
    private let imports = Mutex(RunsAsked())

    init(container: String, name: String, device: DeviceID, schema: Schema, files: DeviceStore, limits: StoreLimits, logger: Logger,
         reopen: @escaping @Sendable (Schema) async throws -> DeviceStore,
         keepForgotten: @escaping @Sendable ([DeviceID: Int64]) async throws -> Void) {
        self.container = container
        self.name = name
        self.device = device
        self.schema = schema
        self.files = files
        self.limits = limits
        self.logger = logger
        self.reopen = reopen
        self.keepForgotten = keepForgotten
        lastStates = []
    }

    // MARK: Opening

    /// What `store.open` does with a client's schema: nothing when it is the one in force or an
    /// older one the schema in force only adds to (`opened`); reopens the store with it when it only
    /// adds to the one in force (`upgraded`, only if `mayUpgrade`); refuses anything else.
    ///
    /// - Throws: `store.schemaNotAdditive`; `store.forbidden` when an upgrade is needed and the
    ///   peer may not write.
    func adopt(_ client: Schema, mayUpgrade: @Sendable () async -> Bool) async throws -> String {
        if client == schema { return "opened" }
        if client.version < schema.version {
            try client.checkAdditive(to: schema)
            return "opened"
        }
        try schema.checkAdditive(to: client)
        guard await mayUpgrade() else {
            throw StoreRequestError(.forbidden, "the schema of '\(name)' would be upgraded to version \(client.version), "
                                    + "which needs the right to write container '\(container)'", details: ["store": .string(name)])
        }
        await takeTurn()
        defer { endTurn() }
        guard client != schema else { return "opened" }
        files = try await reopen(client)
        schema = client
        logger.info("store upgraded", metadata: ["container": "\(container)", "store": "\(name)", "version": "\(client.version)"])
        // The cache was rebuilt with the newer schema: segments that waited for it are imported
        // now, and subscribers read again.
        let clock = Self.clock((try? await files.latestToken()) ?? 0)
        for subscriber in subscribers.values { subscriber.outbox.postEverything(storeHandle: subscriber.handle, container: container, store: name, clock: clock) }
        for (watch, live) in liveFetches {
            liveFetches[watch]?.touched = nil
            live.outbox.liveFetchOwed(watch)
        }
        logTransitions()
        return "upgraded"
    }

    func subscribe(_ subscriber: StoreSubscriber) { subscribers[subscriber.handle] = subscriber }

    func unsubscribe(_ handle: Int) {
        if let subscriber = subscribers.removeValue(forKey: handle) { subscriber.outbox.forget(storeHandle: handle) }
    }

    var subscriberCount: Int { subscribers.count }

    /// Live fetch `watch` is told of every change from now on; its first rows are owed at once.
    func watch(_ watch: Int, request: StoreFetch, outbox: ConnectionOutbox) {
        let byRow = request.limit == nil && ((try? checked(request)).map { $0.endsRead.isEmpty && $0.related.isEmpty } ?? false)
        liveFetches[watch] = LiveFetchState(outbox: outbox, request: request, byRow: byRow)
        outbox.liveFetchOwed(watch)
    }

    /// Live fetch `watch`'s next event: its first rows (`store.gatheringFinished`), then the
    /// update from the rows its subscriber holds to the rows a fetch returns now; nil when
    /// nothing changed or it ended. A fetch of rows by their own columns reads again only the
    /// rows changes touched (``LiveFetchRows``); any other reads the whole fetch and compares.
    ///
    /// - Throws: what ``fetch(_:)`` would now (the answer limit): the live fetch is to end.
    func liveFetchEvent(_ watch: Int) async throws -> StoreWatchEvent? {
        await takeTurn()
        defer { endTurn() }
        guard var live = liveFetches[watch] else { return nil }
        let plan = try StoreFetchPlan(live.request, schema: schema, limits: limits)
        if case .rows(var rows)? = live.held, let touched = live.touched {
            guard !touched.isEmpty else { return nil }
            let current = try await files.fetch(plan.table, ids: touched, where: plan.filter(lists: Array(repeating: [:], count: plan.ends.count)), sortedBy: plan.sort)
            let update = try rows.apply(touched: touched, current: current, maxBytes: limits.maxAnswerBytes) { answerTooLarge(plan.table) }
            live.held = .rows(rows)
            live.touched = []
            liveFetches[watch] = live
            guard !(update.added.isEmpty && update.changed.isEmpty && update.removed.isEmpty) else { return nil }
            func lines(_ rows: [StoreRow]) -> [JSONValue] { rows.map { StoreWire.row(id: $0.id, values: $0.values) } }
            return .update(watch: watch, added: lines(update.added), changed: lines(update.changed), removed: lines(update.removed),
                           clock: Self.clock(try await files.latestToken()))
        }
        let answer = try await answer(plan, limit: live.request.limit)
        let before = live.held
        live.held = live.byRow ? .rows(LiveFetchRows(answer.rows, sort: plan.sort)) : .lines(answer.lines)
        live.touched = []
        liveFetches[watch] = live
        let held: [JSONValue]
        switch before {
        case nil: return .gatheringFinished(watch: watch, rows: answer.lines, clock: answer.clock)
        case .lines(let lines)?: held = lines
        case .rows(let rows)?: held = rows.rows.map { StoreWire.row(id: $0.id, values: $0.values) }
        }
        let difference = LiveFetchState.difference(from: held, to: answer.lines)
        guard !(difference.added.isEmpty && difference.changed.isEmpty && difference.removed.isEmpty) else { return nil }
        return .update(watch: watch, added: difference.added, changed: difference.changed, removed: difference.removed, clock: answer.clock)
    }

    func unwatch(_ watch: Int) { liveFetches[watch] = nil }

    // MARK: Reading

    func describe() async throws -> StoreDescription {
        await takeTurn()
        defer { endTurn() }
        let token = try await files.latestToken()
        return StoreDescription(container: container, store: name, device: device.rawValue, schema: schema,
                                devices: files.syncStates.map(Self.wire), clock: Self.clock(token))
    }

    /// Throws what ``fetch(_:)`` would for a table, column, condition or sort key that does not fit the schema.
    func checked(_ request: StoreFetch) throws -> StoreFetchPlan { try StoreFetchPlan(request, schema: schema, limits: limits) }

    func fetch(_ request: StoreFetch) async throws -> StoreFetch.Result {
        await takeTurn()
        defer { endTurn() }
        let plan = try StoreFetchPlan(request, schema: schema, limits: limits)
        let answer = try await answer(plan, limit: request.limit)
        return StoreFetch.Result(container: container, store: name, table: plan.table, rows: answer.lines, clock: answer.clock)
    }

    /// A fetch's rows, their lines (with the related rows' ids the plan carries), and the store's
    /// clock; the caller holds the turn.
    ///
    /// - Throws: `store.answerTooLarge` when the lines pass `maxAnswerBytes`.
    private func answer(_ plan: StoreFetchPlan, limit: Int?) async throws -> (rows: [StoreRow], lines: [JSONValue], clock: String) {
        // The related rows of each end the predicate reads, by display key.
        var lists = Array(repeating: [RowID: [Value]](), count: plan.ends.count)
        for index in plan.endsRead {
            let end = plan.ends[index]
            let pairs = try await files.pairs(end.relationship, byFrom: end.byFrom)
            var keys: [RowID: String] = [:]
            if let keyColumn = schema.table(end.other)?.uniqueBy.first {
                for row in try await files.fetch(end.other) { keys[row.id] = StoreRelationshipEnd.displayKey(row, keyColumn: keyColumn) }
            }
            lists[index] = pairs.mapValues { ids in ids.map { .string(keys[$0] ?? $0.description) } }
        }
        let rows = try await files.fetch(plan.table, where: plan.filter(lists: lists), sortedBy: plan.sort, limit: limit)
        var related: [[RowID: [RowID]]] = []
        for end in plan.related { related.append(try await files.pairs(end.relationship, byFrom: end.byFrom)) }
        let token = try await files.latestToken()
        var bytes = 0
        var out: [JSONValue] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            var json = StoreWire.row(id: row.id, values: row.values)
            if !plan.related.isEmpty, case .object(var fields) = json {
                for (index, end) in plan.related.enumerated() {
                    fields[end.name] = .array((related[index][row.id] ?? []).map { .string($0.description) })
                }
                json = .object(fields)
            }
            bytes += JSONLine.encode(json).utf8.count + 1
            guard bytes <= limits.maxAnswerBytes else { throw answerTooLarge(plan.table) }
            out.append(json)
        }
        return (rows, out, Self.clock(token))
    }

    private func answerTooLarge(_ table: String) -> StoreRequestError {
        StoreRequestError(.answerTooLarge, "the rows of '\(table)' asked for pass \(limits.maxAnswerBytes) bytes, the most one answer may hold; "
                          + "ask for fewer with 'limit' or 'where'", details: ["limit": .integer(Int64(limits.maxAnswerBytes))])
    }

    // MARK: Writing

    /// One transaction, acknowledged once its segment is `fsync`ed; every other subscriber hears of it.
    func save(_ changes: [StoreSaveChange], connection: UInt64) async throws -> StoreSave.Result {
        guard changes.count <= limits.maxChangesPerSave else {
            throw ProtocolError.malformed("the save has \(changes.count) changes; at most \(limits.maxChangesPerSave) in one transaction",
                                          field: "changes", limit: limits.maxChangesPerSave)
        }
        await takeTurn()
        defer { endTurn() }
        var random = SystemRandomNumberGenerator()
        let (operations, inserted) = try StoreSaveTranslation.operations(changes, schema: schema, random: &random)
        let commit: StoreCommit?
        do {
            commit = try await files.commit(operations)
        } catch let error as StoreError {
            throw error
        } catch {
            logger.error("store save failed", metadata: ["container": "\(container)", "store": "\(name)", "error": "\(error)"])
            throw StoreRequestError(.storageFailed, "the transaction could not be written to the store's folder (\(error)); "
                                    + "it was not acknowledged, and is written with the next save", details: ["store": .string(name)])
        }
        let token: Int64
        if let commit { token = commit.token } else { token = try await files.latestToken() }
        if let commit {
            lastImports[device] = DeviceStore.systemWallClock()
            post(commit.result, from: device, token: commit.token, except: connection)
            logCompaction()
        }
        return StoreSave.Result(container: container, store: name, inserted: inserted.map(\.description), clock: Self.clock(token),
                                segment: commit.map { Int64(clamping: $0.sequence) })
    }

    /// `store.forget`: compaction stops waiting for `raw`'s acknowledgement, until that device
    /// acknowledges again; kept in the state directory before it takes effect, then compaction
    /// runs at once. Nothing of the device's is removed.
    ///
    /// - Throws: `store.unknownDevice` (not a device id, or one the store does not know),
    ///   `store.ownDevice`, `store.storageFailed` (not kept, or the compaction that followed failed).
    func forget(_ raw: String) async throws -> StoreForget.Result {
        await takeTurn()
        defer { endTurn() }
        let details: [String: JSONValue] = ["store": .string(name), "device": .string(raw)]
        guard let other = DeviceID(raw) else {
            throw StoreRequestError(.unknownDevice, "'\(raw)' cannot name a device: a device id is 1 to 64 of A-Z a-z 0-9 - _", details: details)
        }
        guard other != device else {
            throw StoreRequestError(.ownDevice, "device '\(raw)' is this daemon's own: a device cannot stop waiting for itself "
                                    + "(forget a device on the devices that wait for it)", details: details)
        }
        let known = try await files.knownDevices()
        guard let mark = known[other] else {
            let others = known.keys.filter { $0 != device }.map(\.rawValue).sorted()
            throw StoreRequestError(.unknownDevice, "store '\(name)' of container '\(container)' knows no device '\(raw)' (no log, snapshot or "
                                    + "acknowledgement of it); the other devices it knows: \(others.isEmpty ? "none" : others.joined(separator: ", "))",
                                    details: details)
        }
        var forgotten = files.forgottenDevices
        forgotten[other] = mark
        try await keepForgotten(forgotten)
        logger.notice("store device forgotten", metadata: ["container": "\(container)", "store": "\(name)", "device": "\(other)"])
        let removed: Int
        do {
            removed = try await files.forget([other: mark])?.segments.count ?? 0
        } catch {
            throw StoreRequestError(.storageFailed, "device '\(raw)' is forgotten, but removing this device's segments failed (\(error)); "
                                    + "compaction tries again after the next import", details: details)
        }
        let waiting = try await files.compactionStatus().waitingFor
        return StoreForget.Result(container: container, store: name, device: raw, removed: Int64(removed), waitingFor: waiting.map(\.rawValue))
    }

    // MARK: Imports

    /// Asks for an import (the watcher saw the store folder change): true when the caller is to
    /// run ``importWhileAsked()``, false when one runs already and will look again after it.
    nonisolated func askForImport() -> Bool { imports.withLock { $0.ask() } }

    /// Imports until no one asked again during the last import.
    func importWhileAsked() async {
        repeat { await importAvailable() } while imports.withLock({ $0.ended() })
    }

    /// Imports every segment not imported yet and tells every subscriber what each changed.
    func importAvailable() async {
        await takeTurn()
        defer { endTurn() }
        do {
            for imported in try await files.importAvailable() {
                logger.debug("store imported", metadata: ["container": "\(container)", "store": "\(name)", "device": "\(imported.device)",
                                                          "sequence": "\(imported.sequence)", "token": "\(imported.token)",
                                                          "empty": "\(imported.result.isEmpty)", "subscribers": "\(subscribers.count)"])
                lastImports[imported.device] = DeviceStore.systemWallClock()
                post(imported.result, from: imported.device, token: imported.token, except: nil)
            }
        } catch {
            logger.error("store import failed", metadata: ["container": "\(container)", "store": "\(name)", "error": "\(error)"])
        }
        logTransitions()
    }

    /// The store in `status`: each device's sync state, when it was last imported, and how many
    /// of its segments wait; the rows shrunk to floors and the repairs written since it opened.
    func status() async -> StoreStatus {
        let waiting = (try? await files.waitingSegments()) ?? [:]
        let plan = try? await files.compactionStatus()
        let silent = plan?.silent ?? [:], forgotten = Set(plan?.forgotten ?? [])
        var devices = files.syncStates.map { state in
            var wire = Self.wire(state)
            wire.lastImport = lastImports[state.device]
            wire.waiting = waiting[state.device].map { Int64(clamping: $0) }
            wire.silentSince = silent[state.device]
            if forgotten.contains(state.device) { wire.forgotten = true }
            return wire
        }
        // A device that only reads (no log of its own) is known by its acknowledgement file alone.
        for device in Set(silent.keys).union(forgotten).sorted() where !devices.contains(where: { $0.device == device.rawValue }) {
            var wire = StoreDeviceState(device: device.rawValue, imported: 0, state: "current")
            wire.silentSince = silent[device]
            if forgotten.contains(device) { wire.forgotten = true }
            devices.append(wire)
        }
        let tombstones = files.tombstoneCounts
        return StoreStatus(container: container, store: name, schemaVersion: Int64(schema.version), devices: devices,
                           floored: Int64(tombstones.floored), repairs: Int64(tombstones.repairs))
    }

    // MARK: Helpers

    private func post(_ result: ImportResult, from source: DeviceID, token: Int64, except connection: UInt64?) {
        guard !result.isEmpty else { return }
        for (watch, live) in liveFetches {
            liveFetches[watch]?.note(result, maxRows: DeviceStore.maxFetchIDs)
            live.outbox.liveFetchOwed(watch)
        }
        let clock = Self.clock(token)
        // A subscriber whose peer may no longer read the container (a reload took it away) hears
        // nothing more: its subscription ends.
        for (handle, subscriber) in subscribers where subscriber.access.revoked() != nil {
            subscribers[handle] = nil
            subscriber.outbox.forget(storeHandle: handle)
        }
        for subscriber in subscribers.values where subscriber.connection != connection {
            subscriber.outbox.post(storeHandle: subscriber.handle, container: container, store: name, result: result, from: source,
                                   clock: clock, rowLimit: limits.pendingRowsPerStore)
        }
    }

    /// Logs each device whose import became degraded, stopped for an upgrade or went on again: once
    /// per change of condition, however many imports find the same damaged segment.
    func logTransitions() {
        let states = files.syncStates
        for transition in SyncStateTransition.between(lastStates, states) {
            let base: Logger.Metadata = ["container": "\(container)", "store": "\(name)"]
            switch transition {
            case .degraded(let device, let sequence, let code, let reason):
                logger.warning("store import degraded", metadata: base.merging(["device": "\(device)", "segment": "\(sequence)", "code": "\(code)", "reason": "\(reason)"]) { a, _ in a })
            case .needsUpgrade(let device, let sequence, let version):
                logger.warning("store import needs upgrade", metadata: base.merging(["device": "\(device)", "segment": "\(sequence)", "schema_version": "\(version)"]) { a, _ in a })
            case .resumed(let device, let imported):
                logger.info("store import resumed", metadata: base.merging(["device": "\(device)", "imported": "\(imported)"]) { a, _ in a })
            }
        }
        lastStates = states
        logCompaction()
    }

    /// Logs each snapshot that cannot be used, once, a failed snapshot write or compaction once
    /// per new failure (docs/stores.md, "Snapshots and compaction"), and the rows shrunk to floors
    /// and repair segments written by the pass that did ("Tombstones shrink to floors").
    func logCompaction() {
        let base: Logger.Metadata = ["container": "\(container)", "store": "\(name)"]
        let tombstones = files.tombstoneCounts
        if tombstones.floored > loggedTombstones.floored {
            logger.info("store rows shrunk to floors", metadata: base.merging(["rows": "\(tombstones.floored - loggedTombstones.floored)",
                                                                               "since open": "\(tombstones.floored)"]) { a, _ in a })
        }
        if tombstones.repairs > loggedTombstones.repairs {
            logger.notice("store repair segments written", metadata: base.merging(["segments": "\(tombstones.repairs - loggedTombstones.repairs)",
                                                                                   "since open": "\(tombstones.repairs)"]) { a, _ in a })
        }
        loggedTombstones = tombstones
        for problem in files.snapshotProblems where loggedSnapshotProblems.insert(problem).inserted {
            logger.warning("store snapshot unusable", metadata: base.merging(["device": "\(problem.device)", "snapshot": "\(problem.sequence)",
                                                                             "code": "\(problem.code)", "reason": "\(problem.reason)"]) { a, _ in a })
        }
        let stopped = files.importFailure
        if let stopped, stopped != lastImportFailure {
            logger.error("store import failed", metadata: base.merging(["reason": "\(stopped)"]) { a, _ in a })
        }
        lastImportFailure = stopped
        let failure = files.compactionFailure
        if let failure, failure != lastCompactionFailure {
            logger.error("store compaction failed", metadata: base.merging(["reason": "\(failure)"]) { a, _ in a })
        }
        lastCompactionFailure = failure
    }

    /// A clock token on the wire: `s` and the cache's change-log token.
    static func clock(_ token: Int64) -> String { "s\(token)" }

    static func wire(_ state: DeviceSyncState) -> StoreDeviceState {
        let imported = Int64(clamping: state.imported)
        switch state.condition {
        case .current:
            return StoreDeviceState(device: state.device.rawValue, imported: imported, state: "current")
        case .degraded(let sequence, let code, let reason):
            return StoreDeviceState(device: state.device.rawValue, imported: imported, state: "degraded",
                                    sequence: Int64(clamping: sequence), code: code, reason: reason)
        case .needsUpgrade(let sequence, let version):
            return StoreDeviceState(device: state.device.rawValue, imported: imported, state: "needsUpgrade",
                                    sequence: Int64(clamping: sequence), schemaVersion: Int64(version))
        }
    }

    private func takeTurn() async {
        guard busy else { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func endTurn() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
