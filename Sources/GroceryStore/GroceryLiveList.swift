import FoundationEssentials
import UbiquityKit
import UbiquitySystem

/// The live shopping list behind `grocery watch`: gathers the list, then turns the daemon's query
/// notifications into grocery events, and survives the daemon restarting.
///
/// File mode runs `kMDItemFSName LIKE 'Item_*'` and re-reads only the item files an update
/// names; package mode runs `kMDItemFSName == 'grocery.gro'` (the package is one item) and
/// re-loads the package on every update. Either way the new list is compared with the previous
/// one by id (``GroceryChange/between(_:_:at:)``).
///
/// ```
/// run ─▶ gathered ─▶ changed* ─▶ (connection lost) reconnecting ─▶ …retries… ─▶ resumed | regathered ─▶ changed* …
/// ```
///
/// After a reconnect the query resumes from the clock of the last update it took: the daemon
/// answers just what changed while the watcher was away (`resumed`, only those files are read),
/// or, when it cannot tell (it restarted without its saved index), everything (`regathered`).
/// The query asks for `freshness: saved`: a daemon that has just started answers at once from
/// its saved index (a notice says so), and what its check of the files finds follows as changes.
///
/// Cancel the task that calls ``run(_:)`` to stop: it returns normally and closes the connection.
public struct GroceryLiveList: Sendable {
    public enum Event: Sendable, Hashable {
        /// The list when watching began; when the package could not be read then, a ``notice(_:)``
        /// says why and this follows at the first update that brings a list that reads.
        case gathered([GroceryItem])
        /// What one update changed (never empty).
        case changed([GroceryChange])
        /// The daemon went away (stopped, restarted, connection lost); retrying with backoff.
        case reconnecting(reason: String)
        /// Connected again: the whole list as now gathered, and how it differs from before the loss.
        case regathered([GroceryItem], changes: [GroceryChange])
        /// Connected again, and the daemon told exactly what changed while the watcher was away
        /// (possibly nothing).
        case resumed(changes: [GroceryChange])
        /// Store mode: an import of other devices' segments, or another process's save on this
        /// device (`devices` then names ``thisDevice``), changed the list (never empty).
        case imported(devices: [String], changes: [GroceryChange])
        /// Something to tell the user that changes nothing: the container went missing, the
        /// package could not be read (the previous list is kept)...
        case notice(String)
    }

    /// How store mode's `imported` names this device.
    public static let thisDevice = "this device"

    public var socketPath: String
    public var container: String
    public var format: GroceryStorageFormat
    /// Seconds between updates (nil: the daemon's default, 50 ms).
    public var batchingInterval: Double?
    public var backoff: ReconnectBackoff
    /// How long each connection waits for the daemon to answer `hello`.
    public var helloTimeout: Duration = UbiquityConnection.defaultHelloTimeout

    public init(socketPath: String, container: String, format: GroceryStorageFormat,
                batchingInterval: Double? = nil, backoff: ReconnectBackoff = ReconnectBackoff()) {
        self.socketPath = socketPath
        self.container = container
        self.format = format
        self.batchingInterval = batchingInterval
        self.backoff = backoff
    }

    /// Watches until the calling task is cancelled, calling `emit` for every event in order.
    ///
    /// - Throws: What the first connection throws (``UbiquityKitError/daemonNotRunning(socketPath:)``
    ///   when the daemon is not running at all; a `ProtocolError` for an unknown container), and
    ///   any later error that is not the daemon going away. Once the list has been gathered, a
    ///   lost daemon is retried for ever.
    public func run(_ emit: (Event) async -> Void) async throws {
        var known: [GroceryItemID: GroceryItem]?
        var resume: MetadataQuery.ResumePoint?
        var backoff = self.backoff
        var lostReason: String?
        while !Task.isCancelled {
            let list: GroceryList
            do {
                list = try await GroceryList.open(socketPath: socketPath, container: container, format: format,
                                                  helloTimeout: helloTimeout)
            } catch let error as UbiquityKitError where error.isUnreachable && known != nil {
                if lostReason == nil {
                    lostReason = error.description
                    await emit(.reconnecting(reason: error.description))
                }
                try? await Task.sleep(for: backoff.next())
                continue
            }
            do {
                if format == .relational {
                    try await followStore(list, known: &known, backoff: &backoff, emit)
                } else {
                    try await follow(list, known: &known, resume: &resume, regathering: lostReason != nil, backoff: &backoff, emit)
                }
                await list.close()
                if Task.isCancelled { return }
                throw GroceryLiveListError.queryStopped
            } catch let error as UbiquityKitError where error.isUnreachable && known != nil {
                await list.close()
                lostReason = error.description
                await emit(.reconnecting(reason: error.description))
                try? await Task.sleep(for: backoff.next())
            } catch {
                await list.close()
                throw error
            }
        }
    }

    /// One connection's query, until it ends.
    ///
    /// - Parameter resume: the previous connection's results and clock, to resume from; set to
    ///   this connection's when its query ends (every notification was taken by then).
    private func follow(_ list: GroceryList, known: inout [GroceryItemID: GroceryItem]?, resume: inout MetadataQuery.ResumePoint?,
                        regathering: Bool, backoff: inout ReconnectBackoff, _ emit: (Event) async -> Void) async throws {
        let query = list.makeQuery(live: true, batchingInterval: batchingInterval)
        // Right after a daemon restart, the last known list at once (then corrected) rather than
        // nothing until the daemon has checked every file.
        query.freshness = .saved
        var current = known ?? [:]
        /// A whole list the package could not give at a gathering, reset or resume: the next
        /// update reads it whole and tells it as that event would have.
        var owed: Owed?
        /// Package mode keeps watching when the package cannot be read there (a sync engine
        /// removes items.json before renaming the newer one in); a file mode list has no such
        /// moment (an item file missing is skipped), so what fails there ends the watch.
        let keepWatching = format == .package
        let stream = try await query.start(resumingFrom: regathering && known != nil ? resume : nil)
        defer { if let point = query.resumePoint { resume = point } }
        for try await notification in stream {
            switch notification {
            case .didFinishGathering(let results), .didReset(let results):
                let answer: Owed
                if known == nil {
                    answer = .gathered
                } else if case .didFinishGathering = notification, regathering {
                    answer = .regathered
                } else {
                    answer = owed ?? .changed          // a re-gathering or resumption still owed is told as such
                }
                guard let items = try await Self.readOrNotice(emit, keepWatching, { try await list.items(for: results) }) else {
                    owed = answer
                    continue
                }
                await Self.announce(answer, items, after: current, emit)
                current = [GroceryItemID: GroceryItem](items: items)
                known = current
                owed = nil
                backoff.reset()
            case .didResume(let added, let changed, let removed):
                guard let next = try await Self.readOrNotice(emit, keepWatching, {
                    try await updated(current, list: list, query: query, added: added, changed: changed, removed: removed)
                }) else {
                    owed = owed ?? .resumed
                    continue
                }
                let changes = GroceryChange.between(current, next)
                current = next
                known = next
                backoff.reset()
                await emit(.resumed(changes: changes))
            case .couldNotResume:
                // The full list follows as didFinishGathering: `regathered` says so.
                break
            case .didUpdate(let added, let changed, let removed):
                if let answer = owed {
                    // The whole list, owed since the package could not be read.
                    guard let items = try await Self.readOrNotice(emit, true, { try await list.items(for: query.results) }) else { continue }
                    await Self.announce(known == nil ? .gathered : answer, items, after: current, emit)
                    current = [GroceryItemID: GroceryItem](items: items)
                    known = current
                    owed = nil
                    backoff.reset()
                    continue
                }
                guard let next = try await Self.readOrNotice(emit, true, {
                    try await updated(current, list: list, query: query, added: added, changed: changed, removed: removed)
                }) else { continue }
                let changes = GroceryChange.between(current, next)
                current = next
                known = next
                if !changes.isEmpty { await emit(.changed(changes)) }
            case .containerUnavailable(let container):
                await emit(.notice("container \(container) is unavailable (its directory is missing or unreadable)"))
            case .containerAvailable(let container):
                await emit(.notice("container \(container) is available again"))
            case .containerForbidden(let container):
                await emit(.notice("you may no longer read container \(container) (its owner or group changed)"))
            case .unverified:
                await emit(.notice("the daemon just started: this is the list as it last saved it, while it checks the files"))
            case .didVerify:
                await emit(.notice("the daemon has checked the files: the list is current"))
            case .didStartGathering, .gatheringProgress, .resync, .unwatched:
                break
            }
        }
    }

    /// Which event a whole list read answers.
    private enum Owed {
        case gathered, regathered, resumed, changed
    }

    /// Tells the whole list `items`, read for `answer`, against the list as it was (`current`).
    private static func announce(_ answer: Owed, _ items: [GroceryItem], after current: [GroceryItemID: GroceryItem],
                                 _ emit: (Event) async -> Void) async {
        let changes = GroceryChange.between(current, [GroceryItemID: GroceryItem](items: items))
        switch answer {
        case .gathered: await emit(.gathered(items))
        case .regathered: await emit(.regathered(items, changes: changes))
        case .resumed: await emit(.resumed(changes: changes))
        case .changed: if !changes.isEmpty { await emit(.changed(changes)) }
        }
    }

    /// What `read` reads; when `keepWatching`, nil after a notice saying why it could not: the
    /// package caught without its items.json (a sync engine removes the old one before renaming
    /// the newer one in), mid-write by a non-grocery writer, or damaged. The caller keeps the list
    /// as it was and takes the next update. Any other error, and any error without
    /// `keepWatching`, is thrown.
    private static func readOrNotice<T>(_ emit: (Event) async -> Void, _ keepWatching: Bool,
                                        _ read: () async throws -> T) async throws -> T? {
        do {
            return try await read()
        } catch let error as GroceryError where keepWatching {
            await emit(.notice("\(error)"))
            return nil
        }
    }

    /// Store mode, one connection: the list, then, on each of the store's import notifications
    /// (other devices' segments, other processes' saves), the list fetched again and what
    /// changed. Returns when the calling task is cancelled; throws the connection's loss.
    private func followStore(_ list: GroceryList, known: inout [GroceryItemID: GroceryItem]?, backoff: inout ReconnectBackoff,
                             _ emit: (Event) async -> Void) async throws {
        let table = try list.storeTable()
        // Subscribed before the first fetch: a change between the two is fetched again, not missed.
        let notifications = table.store.importNotifications()
        let items = try await table.items()
        var current = [GroceryItemID: GroceryItem](items: items)
        if let known {
            await emit(.regathered(items, changes: GroceryChange.between(known, current)))
        } else {
            await emit(.gathered(items))
        }
        known = current
        backoff.reset()
        for await notification in notifications {
            let next = [GroceryItemID: GroceryItem](items: try await table.items())
            let changes = GroceryChange.between(current, next)
            current = next
            known = next
            guard !changes.isEmpty else { continue }
            let devices = notification.devices.map { $0 == table.store.device ? Self.thisDevice : $0 }
            await emit(.imported(devices: devices, changes: changes))
        }
        if Task.isCancelled { return }
        // The notifications end when the connection does: a request now throws why.
        _ = try await table.store.describe()
        throw GroceryLiveListError.queryStopped
    }

    /// The list after an update. File mode re-reads just the files the update names.
    private func updated(_ current: [GroceryItemID: GroceryItem], list: GroceryList, query: MetadataQuery,
                         added: [MetadataItem], changed: [MetadataItem], removed: [MetadataItem]) async throws -> [GroceryItemID: GroceryItem] {
        switch format {
        case .package, .relational:
            return .init(items: try await list.items(for: query.results))
        case .files:
            return try Self.merged(current, added: added, changed: changed, removed: removed, read: list.files.item(for:))
        }
    }

    /// The list after an update in file mode: `read` reads an item's file now (nil when it is not
    /// there). Only a removal in the update takes an item away. A file missing when it is read
    /// keeps the item as it was: either it was deleted (the next update removes it) or a sync
    /// engine is putting a new version in place (Syncthing deletes the file, then renames its
    /// temporary file over it) and the next update brings that version. Taking the item away there
    /// showed a resolved conflict as the item removed and added again.
    static func merged(_ current: [GroceryItemID: GroceryItem], added: [MetadataItem], changed: [MetadataItem],
                       removed: [MetadataItem], read: (MetadataItem) throws -> GroceryItem?) rethrows -> [GroceryItemID: GroceryItem] {
        var next = current
        for item in removed {
            if let id = GroceryItemID(fileName: item.name) { next[id] = nil }
        }
        for item in changed {
            let oldName = item.oldPath.map(PathBytes.lastComponent(of:))
            if let oldName, oldName != item.name, let id = GroceryItemID(fileName: oldName) { next[id] = nil }
        }
        for result in added + changed {
            guard let id = GroceryItemID(fileName: result.name), let item = try read(result) else { continue }
            next[id] = item
        }
        return next
    }
}
