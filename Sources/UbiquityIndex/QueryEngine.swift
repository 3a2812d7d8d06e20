import Dispatch
import Glibc
import Synchronization
public import UbiquityPredicate

/// The in-process engine: applies change batches to the index and keeps every live query's
/// subscriber told. The server calls it; it owns the index.
///
/// Events are pulled: a subscriber that does not read accumulates coalesced changes, never
/// an unbounded queue, and never slows anyone else (guarantee 7 in docs/live-queries.md). A
/// query is read alone (``events(_:)``) or with others in a group (``nextEvents(_:)``), which
/// hands its reader every query's due event at once — or, for a reader that waits for other
/// things too, ``takeEvents(_:)`` with a nudge when events are ready: the server's per-connection
/// outbox reads each connection's queries that way, so a change that reaches many queries wakes
/// each connection once.
/// What each query owes and when is decided by its ``QueryLifecycle``; this actor only performs
/// the actions (resuming the reader, starting and cancelling the window's timer).
public actor QueryEngine {
    /// Replaced once, by ``adopt(_:)``, when the engine started before its saved index was loaded.
    private var index: MetadataIndex
    private let source: any ChangeSource
    private let clock: EngineClock
    private let limits: EngineLimits
    private var runningQueries: [QueryID: RunningQuery] = [:]
    /// The ``LiveQuery`` of the running queries that ask the same thing, by what they ask
    /// (``share(_:)``); an entry leaves with its last query.
    private var sharedQueries: [SharedQueryKey: LiveQuery] = [:]
    /// Counts the containers added, configured anew (a reload) or removed while running: a query
    /// started after such a change shares with none started before it (``SharedQueryKey``).
    private var containerReconfigurations = 0
    private var nextQueryID: QueryID = 1
    private var groups: [QueryGroupID: Group] = [:]
    private var nextGroupID: UInt64 = 1
    /// While above zero (a batch being applied), groups are woken at its end, not per delivery:
    /// a reader then gets every query's event of the batch in one wake-up.
    private var holdingWakes = 0
    private var groupsToWake: [Group] = []
    /// The sequence number of the last batch applied, and who waits for a later one.
    private var appliedSequence: UInt64 = 0
    private var sequenceWaiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    /// Whether the index is known to match the file system: false from a restore until the first
    /// ``synchronize(includingTags:)`` returns (the crawl that checks the saved index is applied).
    /// Until then a query asking for ``QueryFreshness/saved`` is answered at once, unverified.
    public private(set) var isVerified: Bool
    /// The containers the source last called unavailable.
    private var unavailableContainers: Set<ContainerID> = []
    /// Subtrees unwatched right now, by container, then by path in byte order: an entry leaves
    /// when its subtree is watched again, is gone, or its container goes away, so the list never
    /// outgrows the watcher's own.
    public var unwatched: [UnwatchedSubtree] {
        unwatchedSubtrees.values.flatMap(\.values).sorted(by: UnwatchedSubtree.precedes)
    }
    /// The unwatched subtrees keyed by their path's bytes, as the watcher keys them: two
    /// canonically equal directories (`café` precomposed and decomposed) are two records.
    private var unwatchedSubtrees: [ContainerID: [[ExactName]: UnwatchedSubtree]] = [:]
    /// The index's clock and recent history: what `since` queries are answered from.
    public private(set) var history: ChangeHistory
    /// Wall-clock seconds, for the history's age limit.
    private let wallClock: @Sendable () -> Int64
    /// Where the index is saved; nil: it is not.
    private let persistence: (any IndexPersistence)?
    /// Whether batches go to the journal: only after a snapshot was written by this engine (a
    /// journal without its snapshot is worth nothing), and not after a journal write failed.
    private var isJournaling = false
    /// The snapshot the open journal continues (its header names it).
    private var journalSnapshotID: UInt64 = 0
    /// Who is told when a batch changes a folder at the top of a container (the daemon's
    /// key-value stores reload from it).
    private let folderChanges: [FolderChanges]
    /// What the journal holds since the last snapshot.
    public private(set) var journalRecords = 0
    public private(set) var journalBytes = 0
    /// A save in flight: batches are journaled (also while not journaling: the persistence keeps
    /// them for the new snapshot's journal), and counted for that journal.
    private var isSaving = false
    /// The pieces of the last snapshot, so that the next re-encodes only what changed; used on
    /// the index store's thread, one save at a time.
    private let snapshotEncoder = SnapshotEncoderState()
    private var savingRecords = 0
    private var savingBytes = 0
    /// Saves waiting for the one in flight to end.
    private var saveQueue: [CheckedContinuation<Void, Never>] = []
    /// While the saved index is being loaded (the engine was made `restoring`, ``adopt(_:)`` has
    /// not come): who waits for it. Nil once it is adopted, and when nothing was to be loaded.
    private var restoreWaiters: [CheckedContinuation<Void, Never>]?
    /// Answers remembered at the last clean shutdown, by key (``RememberedAnswer/key(for:containers:)``):
    /// a query asking for freshness "saved" while the index loads is answered from one at once.
    private var rememberedAnswers: [String: RememberedAnswer] = [:]
    /// The index before ``adopt(_:)`` replaced it, kept: queries answered from remembered answers
    /// were made on it, and a ``LiveQuery`` does not own its index.
    private var indexBeforeRestore: MetadataIndex?
    /// Queries whose answers the next final save remembers (``rememberAtShutdown(_:)``), by key.
    private var toRemember: [(key: String, specification: QuerySpecification)] = []
    /// What the final save will remember (tests).
    var specificationsToRemember: [QuerySpecification] { toRemember.map(\.specification) }
    /// How many answers from memory the loaded index did not give again (each was replaced by a
    /// reset): what the tests check.
    private(set) var rememberedAnswersReplaced = 0

    /// A query and what its lifecycle asks the engine to hold: the reader's continuation and the timer.
    final class RunningQuery {
        let id: QueryID
        /// What this query asked: its ``query`` may be one it shares with queries asking the same
        /// results with another batching interval or freshness (``SharedQueryKey``).
        let specification: QuerySpecification
        /// Made anew on the loaded index for a query answered from memory (``adopt(_:)``).
        var query: LiveQuery
        var lifecycle: QueryLifecycle
        var waiter: CheckedContinuation<QueryEvent?, Never>?
        /// The group that reads this query, if it is read in one (then `waiter` stays nil).
        var group: Group?
        var timer: Task<Void, Never>?
        /// While the query gathers in slices: what it found so far; batches are folded in here.
        var gathering: Gathering?
        /// Answered from a remembered answer and not yet gathered on the loaded index: what it
        /// was answered (its results until then; batches pass it by).
        var rememberedResults: ResultSet?
        /// What it asks, when its ``query`` is the one every running query asking the same holds
        /// (``QueryEngine/share(_:)``).
        var sharingKey: SharedQueryKey?

        /// A query that no longer follows the index (stopped, or not live): its results as they
        /// were then. Read from the index instead, an item removed since would be read from a
        /// slot that may hold another item now, of any container.
        var lastResults: ResultSet?

        /// What the query's subscriber holds now.
        var results: ResultSet { rememberedResults ?? lastResults ?? query.results }
        var resultCount: Int { rememberedResults?.count ?? lastResults?.count ?? query.count }

        /// Whether what the index did reaches the query: active, and no longer answered from
        /// memory (batches pass a remembered answer by).
        var hearsChanges: Bool { lifecycle.isActive && rememberedResults == nil }

        /// Whether what the index did is applied to the query's results now: it hears changes,
        /// has gathered (a gathering folds them in instead), and is live.
        var appliesChanges: Bool { hearsChanges && gathering == nil && specification.live }

        init(id: QueryID, query: LiveQuery, lifecycle: QueryLifecycle) {
            self.id = id
            specification = query.specification
            self.query = query
            self.lifecycle = lifecycle
        }
    }

    /// A reader of several queries: what each delivered (at most one event per query, as each
    /// query's lifecycle hands out one at a time), and the reader's continuation.
    final class Group {
        var members: Set<QueryID> = []
        /// Members to ask for their next event when the reader comes back: those it was handed
        /// an event of (a query has at most one in `ready` or in the reader's hands).
        var unarmed: [QueryID] = []
        var ready: [QueryGroupEvent] = []
        var waiter: CheckedContinuation<[QueryGroupEvent]?, Never>?
        var wakeQueued = false
        /// A reader that polls (``takeEvents(_:)``) instead of waiting: told, once, when events
        /// are ready after a poll found none.
        let onReady: (@Sendable () -> Void)?
        var pollerWaits: Bool

        init(onReady: (@Sendable () -> Void)?) {
            self.onReady = onReady
            // A poller is told of the first events (its queries' `gatheringStarted`) before it polls.
            pollerWaits = onReady != nil
        }

        /// Whether a reader waits for this group: one suspended in ``nextEvents(_:)``, or a poller.
        var readerWaits: Bool { waiter != nil || pollerWaits }

        /// What is ready, for the reader; the queries it had events of are asked again when it comes back.
        func handOut() -> [QueryGroupEvent] {
            let events = ready
            ready.removeAll(keepingCapacity: true)
            for e in events where e.event != nil { unarmed.append(e.query) }
            return events
        }
    }

    /// - Parameters:
    ///   - clock: times batching windows; tests pass a manual clock to drive them.
    ///   - history: the index's clock and history to go on from; by default a new epoch.
    ///   - wallClock: seconds since 1970, for the history's age limit.
    ///   - restored: an index and history brought back from a saved index: the engine goes on
    ///     from them (same epoch), and `history` is ignored.
    ///   - persistence: where ``saveIndex()`` writes and batches are journaled.
    ///   - folderChanges: each told, as each batch is applied, which containers' folder it names changed.
    ///   - restoring: a saved index is being loaded: it comes with ``adopt(_:)``, and until then
    ///     everything that reads the index waits for it, but a query asking for freshness "saved"
    ///     whose answer is `remembered` is answered from it at once.
    public init<C: Clock>(containers: [ContainerDescriptor], source: any ChangeSource, limits: EngineLimits = EngineLimits(),
                          clock: C = ContinuousClock(), history: ChangeHistory? = nil,
                          wallClock: (@Sendable () -> Int64)? = nil, restored: sending RestoredIndex? = nil,
                          persistence: (any IndexPersistence)? = nil,
                          folderChanges: [FolderChanges] = [], restoring: Bool = false,
                          remembered: [RememberedAnswer] = []) where C.Duration == Duration {
        self.source = source
        self.folderChanges = folderChanges
        self.clock = EngineClock(clock)
        self.limits = limits
        self.index = restored?.index ?? MetadataIndex()
        self.history = restored?.history ?? history
            ?? ChangeHistory(epoch: UInt64.random(in: 1...UInt64.max), retention: limits.history)
        self.wallClock = wallClock ?? { Int64(Glibc.time(nil)) }
        self.persistence = persistence
        self.isVerified = restored == nil && !restoring
        if restoring && restored == nil {
            restoreWaiters = []
            for answer in remembered { rememberedAnswers[answer.key] = answer }
        }
        if let restored, let journal = Self.continuedJournal(of: restored, saving: persistence != nil) {
            (isJournaling, journalSnapshotID, journalRecords, journalBytes) = (true, journal.of, journal.records, journal.bytes)
        }
        for container in containers { index.addContainer(container) }
    }

    /// A restore whose journal goes on (``RestoredIndex/continueJournal(in:)``): every batch is
    /// journaled from the first, and the next snapshot continues that journal.
    private static func continuedJournal(of restored: RestoredIndex, saving: Bool) -> (of: UInt64, records: Int, bytes: Int)? {
        guard restored.isJournalContinued, saving, let continuation = restored.journalContinuation else { return nil }
        return (continuation.journalOf, restored.continuedRecords, restored.continuedBytes)
    }

    /// Who waits until so many callers wait for the saved index to load (``untilWaitingForRestore(_:)``).
    private var restoreWaiterWatchers = CountWatchers()

    /// Returns once `count` callers wait for the saved index to load (or it is loaded): what the
    /// tests wait for, rather than look again and again.
    func untilWaitingForRestore(_ count: Int) async {
        guard let waiters = restoreWaiters, waiters.count < count else { return }
        await withCheckedContinuation { restoreWaiterWatchers.add(until: count, $0) }
    }

    /// Returns once the saved index is loaded (``adopt(_:)``), at once when none was being loaded.
    private func untilRestored() async {
        guard restoreWaiters != nil else { return }
        await withCheckedContinuation { continuation in
            guard restoreWaiters != nil else { return continuation.resume() }
            restoreWaiters!.append(continuation)
            restoreWaiterWatchers.reached(restoreWaiters!.count)
        }
    }

    /// Takes the saved index loaded since the engine started (`restoring`), or nil: none could be
    /// loaded, and the index is built by crawling from nothing under the engine's new epoch.
    /// Queries answered from memory meanwhile are gathered again on it: one whose results are
    /// what it was answered goes on from there; another gets a reset with its results whole,
    /// or — with nothing loaded — after the crawl (``verify(_:includingTags:)``). Then everything
    /// that waited for the index goes on.
    public func adopt(_ restored: sending RestoredIndex?) {
        guard let waiters = restoreWaiters else { return }
        let placeholder = index
        // Answers taken with another snapshot than the one loaded carry another clock: replaced.
        let sameSnapshot = rememberedAnswers.values.allSatisfy { $0.snapshotID == restored?.snapshotID }
        if let restored {
            index = restored.index
            history = restored.history
            if let journal = Self.continuedJournal(of: restored, saving: persistence != nil) {
                (isJournaling, journalSnapshotID, journalRecords, journalBytes) = (true, journal.of, journal.records, journal.bytes)
            }
            for container in placeholder.containers { index.addContainer(container) }
        } else {
            isVerified = true
        }
        indexBeforeRestore = placeholder
        restoreWaiters = nil
        restoreWaiterWatchers.resumeAll()
        rememberedAnswers = [:]
        for running in runningQueries.values.sorted(by: { $0.id < $1.id }) where running.rememberedResults != nil {
            running.query = LiveQuery(running.specification, index: index, context: EvaluationContext())
            // A one-shot answer, or a query stopped meanwhile: its results stay what it was answered.
            guard running.lifecycle.isActive else { continue }
            if restored != nil { gatherRemembered(running, replacing: !sameSnapshot) }
            let includingTags = running.specification.readsTags
            Task { await self.verify(running.id, includingTags: includingTags) }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Gathers a query answered from memory on the index as it is now: it goes on from its
    /// results (members built); a reset is owed when they are not what it was answered.
    private func gatherRemembered(_ running: RunningQuery, replacing: Bool = false) {
        guard let remembered = running.rememberedResults else { return }
        let results = running.query.gather()
        running.rememberedResults = nil
        if replacing || !results.isSameAnswer(as: remembered) {
            rememberedAnswersReplaced += 1
            perform(running.lifecycle.resultsReplaced(now: clock.now()), running)
        }
    }

    /// Registers a container added while running (a configuration reload); its items arrive
    /// from the source like any others.
    public func addContainer(_ descriptor: ContainerDescriptor) async {
        await untilRestored()
        journal(.containerAdded(descriptor))
        index.addContainer(descriptor)
        containerReconfigurations += 1
    }

    /// A container leaves the configuration (a reload): call before its items' removal arrives
    /// from the source. Tokens from before are answered fresh (``FreshReason/containerRemoved``):
    /// its items may have been results for a client that may no longer read it.
    public func containerRemoved() async {
        await untilRestored()
        journal(.containerRemoved)
        history.noteContainerRemoved()
        containerReconfigurations += 1
    }

    // MARK: - Saving the index

    /// Writes the index and its history as a new snapshot and starts its journal; from then on
    /// every batch is journaled before its clock can be handed out.
    ///
    /// The snapshot is the index at the moment of the call: its columns are taken as copies that
    /// share the engine's storage until the engine next writes to them (copy on write), then
    /// encoded and written off the engine (``IndexPersistence/runBlocking(_:)``), while the
    /// engine applies batches and answers everyone. Batches applied meanwhile go to the open
    /// journal, which the new snapshot continues from where it was taken, and to the new
    /// snapshot's journal (docs/architecture.md, "The saved index"). Saves run one at a time.
    ///
    /// - Parameter final: a clean shutdown's last snapshot (no batch follows): it is trusted
    ///   after a reboot, which a snapshot followed by a journal is not.
    /// - Returns: the snapshot's size in bytes.
    @discardableResult
    public func saveIndex(final: Bool = false) async throws -> Int {
        guard let persistence else { return 0 }
        await untilRestored()
        while isSaving { await withCheckedContinuation { saveQueue.append($0) } }
        isSaving = true
        defer {
            isSaving = false
            if !saveQueue.isEmpty { saveQueue.removeFirst().resume() }
        }
        let snapshotID = UInt64.random(in: 1...UInt64.max)
        let position = persistence.beginSnapshot()
        let continues = isJournaling ? position.map { IndexSnapshot.Continuation(snapshotID: journalSnapshotID, offset: $0) } : nil
        let view = IndexSnapshot.View(index, history: history)
        // Gathered now, on the index the snapshot holds, so that they are what it answers.
        let answers = final ? rememberedAnswersNow() : []
        let savedAt = wallClock(), bootID = persistence.bootID
        // A clean shutdown's journal names no boot: no record follows it (``RestoredIndex``).
        let header = IndexJournal.header(snapshotID: snapshotID, bootID: final ? "" : bootID)
        let encoder = snapshotEncoder
        savingRecords = 0
        savingBytes = 0
        let size: Int, filed: [String: FiledNameBucket]
        do {
            (size, filed) = try await persistence.runBlocking {
                // A first crawl's waiting names are sorted here, off the engine, which takes them below.
                var view = view
                let filed = view.fileWaitingNames()
                var readBack: SnapshotReadBack?
                if persistence.readsSnapshotBack {
                    readBack = { offset, destination in persistence.readSnapshot(at: offset, into: destination) }
                }
                let bytes = encoder.state.withLock {
                    $0.encode(view, snapshotID: snapshotID, savedAt: savedAt, bootID: bootID, final: final, continues: continues,
                              readBack: readBack)
                }
                do {
                    try persistence.replace(snapshot: bytes, journalHeader: header)
                } catch {
                    encoder.state.withLock { $0.notWritten() }
                    throw error
                }
                // The written file holds the pieces' bytes now: the encoder lets go of its copy.
                encoder.state.withLock { $0.written() }
                if final && !answers.isEmpty { persistence.remember(answers: RememberedAnswers.encode(answers, snapshotID: snapshotID)) }
                return (bytes.count, filed)
            }
        } catch {
            isJournaling = false
            throw error
        }
        // The new journal holds every record since the snapshot was taken (even one the old
        // journal failed to take).
        index.takeFiledNames(filed)
        isJournaling = true
        journalSnapshotID = snapshotID
        journalRecords = savingRecords
        journalBytes = savingBytes
        return size
    }

    /// The live queries of `ids` that ask for freshness "saved" are remembered by the final save,
    /// answered as the snapshot it writes answers them: the server calls this for each connection
    /// it closes because the daemon stops, before their queries are released. Kept: at most
    /// ``RememberedAnswers/maxAnswers`` different queries.
    public func rememberAtShutdown(_ ids: [QueryID]) {
        for id in ids.sorted() {
            guard let running = runningQueries[id], running.lifecycle.isActive else { continue }
            let specification = running.specification
            guard specification.live, specification.freshness == .saved else { continue }
            let key = RememberedAnswer.key(for: specification, containers: index.containers)
            guard toRemember.count < RememberedAnswers.maxAnswers, !toRemember.contains(where: { $0.key == key }) else { continue }
            toRemember.append((key, specification))
        }
    }

    /// The answers of the queries to remember, gathered on the index as it is now, while their
    /// results fit in ``RememberedAnswers/maxItems``; none before a clock was handed out (no
    /// query was answered), as the history would not go on from it.
    private func rememberedAnswersNow() -> [RememberedAnswer] {
        guard history.isTracking else { return [] }
        var answers: [RememberedAnswer] = [], items = 0
        for (key, specification) in toRemember {
            guard specification.containers.allSatisfy({ index.containerIndex($0) != nil }) else { continue }
            let results = LiveQuery(specification, index: index, context: EvaluationContext()).gather()
            guard items + results.count <= RememberedAnswers.maxItems else { continue }
            items += results.count
            answers.append(RememberedAnswer(key: key, clock: history.clock, results: results))
        }
        return answers
    }

    /// Appends to the journal, when journaling or saving; a failed write stops it until the next
    /// snapshot (the persistence has made sure the stale saved index is not loaded).
    private func journal(_ record: IndexJournal.Record) {
        guard isJournaling || isSaving, let persistence else { return }
        let write = JournalWrite(record)
        write.append(to: persistence)
        noteJournalWrite(write.written, bytes: write.bytes)
    }

    private func noteJournalWrite(_ written: Bool, bytes: Int) {
        if written {
            journalRecords += 1
            journalBytes += bytes
            if isSaving {
                savingRecords += 1
                savingBytes += bytes
            }
        } else {
            isJournaling = false
        }
    }

    /// Listed entries in a batch from which its journal record is encoded and written on a
    /// second thread while the index applies it (``JournalWrite``): a whole container's listing
    /// after a restart (the check of a saved index) is a record of a million entries at 1M, whose
    /// encoding and write took a third as long as applying it, one after the other.
    static let journalAlongsideEntries = 4096

    /// Tells the subscribers of a container something the source did not (e.g. that the
    /// container was removed from the configuration: `.containerUnavailable`).
    public func announce(_ notice: ChangeNotice) {
        holdWakes()
        defer { releaseWakes() }
        broadcast(notice, realChanges: 0)
    }

    /// Items per container right now.
    public func itemCounts() async -> [ContainerID: Int] {
        await untilRestored()
        return index.itemCountsByContainer()
    }

    /// What `container`'s items take (``ContainerStorage``); nil for a container not served.
    public func storage(of container: ContainerID, largest count: Int) async -> ContainerStorage? {
        await untilRestored()
        return index.containerIndex(container).map { index.storage(ofContainer: $0, largest: count) }
    }

    /// Where the item at `components` (below `container`'s root) stands with the sync engine;
    /// nil when the index holds no item there.
    public func syncStanding(of container: ContainerID, _ components: [String]) async -> ItemSyncStanding? {
        await untilRestored()
        guard let position = index.containerIndex(container), !components.isEmpty,
              let id = index.lookup(container: position, components) else { return nil }
        let values = index.syncValues(id)
        let connected = index.syncFacts[position]?.connected ?? []
        let stat = index.stat(id)
        return ItemSyncStanding(values: values, evicted: stat.evicted, isDirectory: stat.kind == .directory,
                                isPackage: IndexedItem(index, id).isPackage,
                                connectedHolders: (values.currentVersionDevices ?? []).filter(connected.contains).sorted())
    }

    // MARK: - Running

    /// Consumes the source until it ends or the task is cancelled.
    public func run() async {
        await untilRestored()
        for await batch in source.batches() {
            apply(batch)
            source.applied(through: batch.sequence)
            if batch.listedEntries >= Self.freedElsewhereEntries { Self.freeElsewhere(batch) }
        }
    }

    /// Listed entries from which a batch, once applied, is freed on another thread.
    static let freedElsewhereEntries = 4096

    /// Lets `batch` go on another thread. A first crawl's listing holds every entry, and freeing
    /// it (a release per entry's status; 17 ms at a million, `perf`) here held up the gathering
    /// its sync waiters resume to, with the other core idle. The caller's reference goes at the
    /// end of its loop, almost always before the other thread's; if not, the batch is freed here
    /// as before.
    private nonisolated static func freeElsewhere(_ batch: ChangeBatch) {
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(batch) {} }
    }

    /// Applies one batch (also usable directly, e.g. by tests and benchmarks).
    public func apply(_ batch: ChangeBatch) {
        holdWakes()
        defer { releaseWakes() }
        let now = wallClock()
        let journaled = batch.changes.contains(where: { !$0.isListingPart })
        let record = IndexJournal.Record.batch(batch.changes, time: now, tracking: history.isTracking)
        // With no live query and no clock handed out yet (the first crawl), skip building the change set.
        let recording = history.isTracking || runningQueries.values.contains { $0.lifecycle.isActive }
        let changes: ChangeSet
        if journaled, isJournaling || isSaving, let persistence, batch.listedEntries >= Self.journalAlongsideEntries {
            // Written before any clock of the batch is handed out all the same: both are done here.
            let write = JournalWrite(record)
            changes = SideThread.run({ write.append(to: persistence) }) { index.apply(batch.changes, record: recording) }
            noteJournalWrite(write.written, bytes: write.bytes)
        } else {
            if journaled { journal(record) }
            changes = index.apply(batch.changes, record: recording)
        }
        history.record(changes, now: now)
        appliedSequence = max(appliedSequence, batch.sequence)
        deliver(changes)
        for notice in batch.notices { broadcast(notice, realChanges: changes.count) }
        for folder in folderChanges {
            let touched = batch.containers(touching: folder.folder)
            if !touched.isEmpty { folder.changed(touched) }
        }
        if !sequenceWaiters.isEmpty {
            let ready = sequenceWaiters.filter { $0.sequence <= appliedSequence }
            sequenceWaiters.removeAll { $0.sequence <= appliedSequence }
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    /// Hands what the index did to every live query (folded into those still gathering).
    private func deliver(_ changes: ChangeSet) {
        guard !changes.isEmpty else { return }
        // Shared only among the queries that will apply it: with one, a delivery keeps nothing.
        let shared = SharedResultItems(forQueries: runningQueries.values.count(where: \.appliesChanges))
        // A LiveQuery that several running queries share is applied once; each of them takes its delta.
        var sharedDeltas: [ObjectIdentifier: QueryDelta] = [:]
        for running in runningQueries.values where running.hearsChanges {
            if running.gathering != nil {
                running.query.noteDuringGathering(&running.gathering!, changes)
                changesFoldedIntoGatherings += 1
                continue
            }
            guard running.appliesChanges else { continue }
            let delta: QueryDelta
            if running.query.sharers > 1 {
                let key = ObjectIdentifier(running.query)
                if let made = sharedDeltas[key] {
                    delta = made
                } else {
                    delta = running.query.apply(changes, sharing: shared)
                    sharedDeltas[key] = delta
                }
            } else {
                delta = running.query.apply(changes, sharing: shared)
            }
            perform(running.lifecycle.changesArrived(delta, now: clock.now()), running)
        }
    }

    /// Gives a live query that has just gathered the ``LiveQuery`` of the running queries that
    /// ask the same thing (``SharedQueryKey``), if there are any: both are exact against the index
    /// as it is now, so they hold the same results. Otherwise its own becomes the one later ones
    /// share, its members built (call before the index changes again).
    private func share(_ running: RunningQuery) {
        guard let key = SharedQueryKey(running.query, containerReconfigurations: containerReconfigurations) else {
            running.query.buildMembers()
            return
        }
        if let query = sharedQueries[key] {
            running.query = query
        } else {
            running.query.buildMembers()
            sharedQueries[key] = running.query
        }
        running.query.sharers += 1
        running.sharingKey = key
        sharedQueriesJoined += running.query.sharers > 1 ? 1 : 0
    }

    /// A query leaves the ``LiveQuery`` it shared (stopped or released): the others go on with it.
    private func unshare(_ running: RunningQuery) {
        guard let key = running.sharingKey else { return }
        running.sharingKey = nil
        running.query.sharers -= 1
        if running.query.sharers == 0 { sharedQueries[key] = nil }
    }

    /// Takes what the sync engine now says of a container's items (nil: a single machine again).
    /// Every item whose sync attributes this changes is an update for the live queries that hold
    /// it and for `since` answers, like any other change of its metadata.
    ///
    /// - Returns: how many items it changed: a container's first facts change every one of them,
    ///   and the change set held each one's state meanwhile (freed when this returns).
    @discardableResult
    public func updateSyncFacts(_ facts: ContainerSyncFacts?, for container: ContainerID) async -> Int {
        await untilRestored()
        guard let position = index.containerIndex(container), index.syncFacts[position] != facts else { return 0 }
        holdWakes()
        defer { releaseWakes() }
        let affected = index.itemsAffected(ofContainer: position, by: facts)
        var changes = ChangeSet()
        for id in affected {
            changes.changes[id] = ChangeSet.Change(id: id, kind: .updated, before: IndexedItem(index, id).frozen(), oldPath: nil)
        }
        index.syncFacts[position] = facts
        guard !changes.isEmpty else { return 0 }
        changes.containers.insert(position)
        history.record(changes, now: wallClock())
        deliver(changes)
        return changes.count
    }

    private func broadcast(_ notice: ChangeNotice, realChanges: Int) {
        trackUnwatched(notice)
        guard notice.reachesSubscribers else { return }
        // "Available" is news only after "unavailable": the watcher calls every container available
        // when it first crawls it, also while a query answered from the saved index listens.
        switch notice {
        case .containerUnavailable(let container): unavailableContainers.insert(container)
        case .containerAvailable(let container): guard unavailableContainers.remove(container) != nil else { return }
        default: break
        }
        var changes = 0
        if case .resync = notice { changes = realChanges }
        let event = QueryEvent.notice(notice, changes: changes)
        let container = notice.container
        for running in runningQueries.values where running.lifecycle.isActive {
            let wanted = running.specification.containers
            guard wanted.isEmpty || wanted.contains(container) else { continue }
            perform(running.lifecycle.noticeArrived(event, now: clock.now()), running)
        }
    }

    private func trackUnwatched(_ notice: ChangeNotice) {
        switch notice {
        case .subtreeUnwatched(let subtree):
            unwatchedSubtrees[subtree.container, default: [:]][ExactName.path(subtree.path)] = subtree
        case .subtreeWatched(let c, let path), .subtreeGone(let c, let path):
            let prefix = ExactName.path(path)
            unwatchedSubtrees[c] = unwatchedSubtrees[c]?.filter { !$0.key.starts(with: prefix) }
        case .containerUnavailable(let c):
            unwatchedSubtrees[c] = nil
        case .containerAvailable, .resync, .skipped, .accessChanged:
            break
        }
    }

    /// Returns once every change that happened before the call is in the index (and with
    /// `includingTags`, every entry's tags: ``ChangeSource/sync(includingTags:)``).
    public func synchronize(includingTags: Bool = false) async throws {
        await untilRestored()
        let target = try await source.sync(includingTags: includingTags)
        if appliedSequence < target {
            await withCheckedContinuation { continuation in
                if appliedSequence >= target {
                    continuation.resume()
                } else {
                    sequenceWaiters.append((target, continuation))
                }
            }
        }
        isVerified = true
    }

    // MARK: - Queries

    /// Starts a query: synchronises with the source (complete gathering, guarantee 1 in docs/live-queries.md), gathers,
    /// and returns its id. Read its events with ``events(_:)``. A query asking for
    /// ``QueryFreshness/saved`` while the restored index is not yet verified (``isVerified``) is
    /// gathered at once instead, its answer marked unverified; once the source has synchronised,
    /// it gets ``QueryEvent/verified`` after the updates the check brought.
    ///
    /// The gathering runs in slices of ``EngineLimits/gatheringSlice`` on this actor, which in
    /// between answers everyone else (other clients' requests, batches, other gatherings): an
    /// expensive predicate costs its own client time, not the others'. Batches applied meanwhile
    /// are folded into the gathering (``Gathering``), so the results are exact when it finishes.
    ///
    /// - Throws: ``EngineError/unknownContainer(_:)``; `CancellationError` when the calling task
    ///   is cancelled during the gathering (its client went away).
    /// - Parameter since: a clock from an earlier answer: the gathering also tells what changed
    ///   for this query since then (``SinceAnswer``).
    public func start(_ specification: QuerySpecification, since: HistoryClock? = nil) async throws -> QueryID {
        for container in specification.containers where index.containerIndex(container) == nil {
            throw EngineError.unknownContainer(container)
        }
        if since == nil, specification.freshness == .saved, restoreWaiters != nil,
           let answer = rememberedAnswers[RememberedAnswer.key(for: specification, containers: index.containers)] {
            return startRemembered(specification, answer)
        }
        await untilRestored()
        let unverified = specification.freshness == .saved && !isVerified
        // The watcher's tag pass waits while an answer is gathered (and written: the server
        // says so too): on two cores, the pass after a crawl of a million entries nearly doubled
        // the time of a 100k-item answer given while it ran.
        source.answering(true)
        defer { source.answering(false) }
        // Only a query that reads tags waits for the tags of a crawl (the watcher's tag pass).
        if !unverified { try await synchronize(includingTags: specification.readsTags) }
        // An answer from the saved index holds the crawl that checks it until the answer is
        // written (``unverifiedAnswersWritten(_:)``), or for at most its bound: on two cores the
        // crawl's walkers took most of the processor from it (docs/architecture.md).
        var holdsCrawl = false
        if unverified {
            source.holdCrawl(for: Self.crawlHoldPerUnverifiedAnswer)
            holdsCrawl = true
        }
        // Not answered after all (cancelled): the hold ends here.
        defer { if holdsCrawl { source.releaseCrawl() } }
        let id = nextQueryID
        nextQueryID += 1
        let query = LiveQuery(specification, index: index, context: EvaluationContext())
        let running = RunningQuery(id: id, query: query, lifecycle: QueryLifecycle(
            interval: specification.batchingInterval, itemLimit: limits.pendingItemsPerQuery,
            noticeLimit: limits.pendingNoticesPerQuery))
        runningQueries[id] = running
        running.gathering = query.beginGathering()
        let slice = limits.gatheringSlice
        while true {
            let sliceEnd = ContinuousClock.now + slice
            if query.continueGathering(&running.gathering!, shouldPause: { ContinuousClock.now >= sliceEnd }) { break }
            gatheringPauses += 1
            await Task.yield()
            if Task.isCancelled {
                runningQueries[id] = nil
                throw CancellationError()
            }
        }
        let results = query.finishGathering(running.gathering!, buildingMembers: false)
        running.gathering = nil
        if !specification.live { running.lastResults = results }
        let answer: SinceAnswer? = since.map { since in
            switch history.states(since: since) {
            case .success(let then): .changes(query.changes(since: then), since: since)
            case .failure(let reason): .fresh(reason)
            }
        }
        perform(running.lifecycle.gathered(results, clock: history.handOut(), since: answer, verified: !unverified,
                                           live: specification.live, now: clock.now()), running)
        holdsCrawl = false      // the answer's writer releases it
        if unverified && specification.live {
            Task { await self.verify(id, includingTags: specification.readsTags) }
        }
        // A live query's members, once its answer is on its way (written meanwhile on another
        // thread) and before the next batch, or those of the running queries asking the same; a
        // one-shot query never needs them.
        if specification.live { share(running) }
        return id
    }

    /// Answers a query from what the same query was answered at the last clean shutdown, while
    /// the saved index loads: marked unverified, with the snapshot's clock. ``adopt(_:)`` gathers
    /// it again on the loaded index; the crawl's check of that index follows as for any
    /// unverified answer.
    private func startRemembered(_ specification: QuerySpecification, _ answer: RememberedAnswer) -> QueryID {
        // Held as any unverified answer holds it: the outbox releases it once the answer is written.
        source.holdCrawl(for: Self.crawlHoldPerUnverifiedAnswer)
        let id = nextQueryID
        nextQueryID += 1
        let running = RunningQuery(id: id, query: LiveQuery(specification, index: index, context: EvaluationContext()),
                                   lifecycle: QueryLifecycle(interval: specification.batchingInterval,
                                                             itemLimit: limits.pendingItemsPerQuery,
                                                             noticeLimit: limits.pendingNoticesPerQuery))
        running.rememberedResults = answer.results
        runningQueries[id] = running
        perform(running.lifecycle.gathered(answer.results, clock: answer.clock, verified: false, live: specification.live,
                                           now: clock.now()), running)
        return id
    }

    /// The longest an answer from the saved index holds the crawl that checks it
    /// (``ChangeSource/holdCrawl(for:)``): time enough to write a million results; a client that
    /// does not read its answer holds the crawl no longer than this.
    public static let crawlHoldPerUnverifiedAnswer: Duration = .milliseconds(500)

    /// `count` answers marked unverified were written to their clients: the holds they made on
    /// the source's crawl (``start(_:since:)``) end.
    public nonisolated func unverifiedAnswersWritten(_ count: Int) {
        for _ in 0..<count { source.releaseCrawl() }
    }

    /// A result set, or live queries' notifications, began (`true`) or finished (`false`) being
    /// written to a client: the source's background work waits meanwhile, as while
    /// ``start(_:since:)`` gathers an answer.
    public nonisolated func answering(_ busy: Bool) { source.answering(busy) }

    /// Tells query `id`, answered unverified, that the index is checked, once the source has
    /// synchronised (its updates come first). A source that ends first ends the query anyway.
    private func verify(_ id: QueryID, includingTags: Bool) async {
        defer { verificationEnded() }
        guard (try? await synchronize(includingTags: includingTags)) != nil, let running = runningQueries[id] else { return }
        // Answered from memory when no saved index could be loaded: gathered now, on the crawl's
        // index, and replaced whatever it holds (the answer's clock is of the refused index's epoch).
        // Not when it was stopped meanwhile: its results stay what they were at the stop.
        if running.lifecycle.isActive { gatherRemembered(running, replacing: true) }
        perform(running.lifecycle.verificationFinished(now: clock.now()), running)
    }

    /// How many checks of unverified answers (``verify(_:includingTags:)``) have ended, and who
    /// waits for a count of them: what the tests wait for, rather than look again and again.
    private(set) var verificationsEnded = 0
    private var verificationWatchers = CountWatchers()

    func untilVerificationsEnded(_ count: Int) async {
        guard verificationsEnded < count else { return }
        await withCheckedContinuation { verificationWatchers.add(until: count, $0) }
    }

    private func verificationEnded() {
        verificationsEnded += 1
        verificationWatchers.reached(verificationsEnded)
    }

    /// How often gatherings paused for others, and how many batches were folded into a
    /// gathering in progress: what the tests of sliced gathering check happened.
    private(set) var gatheringPauses = 0
    /// How many live queries took the results of running ones that ask the same (``share(_:)``),
    /// and how many different live results are kept now: what the tests of sharing check.
    private(set) var sharedQueriesJoined = 0
    var sharedLiveQueryCount: Int { sharedQueries.count }
    /// How many members the query's ``LiveQuery`` holds (tests: none once it is stopped).
    func heldMemberCount(_ id: QueryID) -> Int? { runningQueries[id]?.query.count }
    private(set) var changesFoldedIntoGatherings = 0

    /// The events of a query, as an async sequence; it ends when the query stops.
    public nonisolated func events(_ id: QueryID) -> QueryEvents { QueryEvents(engine: self, id: id) }

    /// The current results of a query (also after it stopped, until it is released).
    public func results(_ id: QueryID) throws(EngineError) -> ResultSet {
        guard let running = runningQueries[id] else { throw .unknownQuery(id) }
        return running.results
    }

    /// How many results a query has now, without building them.
    public func resultCount(_ id: QueryID) throws(EngineError) -> Int {
        guard let running = runningQueries[id] else { throw .unknownQuery(id) }
        return running.resultCount
    }

    public func disableUpdates(_ id: QueryID) throws(EngineError) {
        guard let running = runningQueries[id] else { throw .unknownQuery(id) }
        perform(running.lifecycle.disable(), running)
    }

    /// Releases everything held back since `disableUpdates` as one update.
    public func enableUpdates(_ id: QueryID) throws(EngineError) {
        guard let running = runningQueries[id] else { throw .unknownQuery(id) }
        perform(running.lifecycle.enable(now: clock.now()), running)
    }

    /// Stops a query: no more events; its last results stay readable until ``release(_:)``.
    /// What it followed the index with (its ``LiveQuery``: members and order) is let go at once:
    /// a stopped query held until its release would otherwise keep both.
    public func stop(_ id: QueryID) throws(EngineError) {
        guard let running = runningQueries[id] else { throw .unknownQuery(id) }
        unshare(running)
        if running.lifecycle.isActive {
            running.lastResults = running.results
            running.query = LiveQuery(running.specification, index: index, context: EvaluationContext())
        }
        perform(running.lifecycle.stop(now: clock.now()), running)
    }

    public func release(_ id: QueryID) {
        if let running = runningQueries.removeValue(forKey: id) {
            unshare(running)
            perform(running.lifecycle.release(), running)
        }
    }

    /// Results of a one-shot query against the index as it is now (no barrier, no running).
    public func currentResults(_ specification: QuerySpecification) async -> ResultSet {
        await untilRestored()
        return LiveQuery(specification, index: index, context: EvaluationContext()).gather()
    }

    /// How many items match, without building results: the cost of the lookup itself.
    public func count(_ predicate: MetadataPredicate) async -> Int {
        await untilRestored()
        let query = LiveQuery(QuerySpecification(predicate: predicate), index: index, context: EvaluationContext())
        return query.matchingIDs().count
    }

    public var queryCount: Int { runningQueries.values.filter { $0.lifecycle.isActive }.count }
    public var itemCount: Int { index.itemCount }
    /// How many names of a first crawl still wait to be filed (``MetadataIndex/pendingNames``).
    var waitingNameCount: Int { index.pendingNames.values.reduce(0) { $0 + $1.count } }

    // MARK: - Delivery

    /// Does what a query's lifecycle decided: the only place continuations resume and timers start.
    private func perform(_ actions: [QueryLifecycle.Action], _ running: RunningQuery) {
        for action in actions {
            switch action {
            case .deliver(let delivery):
                // An update or reset brings its subscriber to the index as it is now: it carries
                // everything pending (guarantee 8 in docs/live-queries.md).
                let event: QueryEvent
                switch delivery {
                case .event(.update(var delta)):
                    delta.clock = history.handOut()
                    event = .update(delta)
                case .event(let next): event = next
                case .reset: event = .reset(running.results, clock: history.handOut())
                }
                hand(event, to: running)
            case .finish:
                hand(nil, to: running)
            case .armTimer(let due):
                running.timer?.cancel()
                let id = running.id
                running.timer = Task { [weak self, clock] in
                    do { try await clock.sleep(due) } catch { return }    // cancelled
                    await self?.timerFired(id)
                }
            case .cancelTimer:
                running.timer?.cancel()
                running.timer = nil
            }
        }
    }

    /// Gives a query's reader its event (nil: the query ended for it): resumes a lone reader, or
    /// adds it to the group's and wakes the group's reader.
    private func hand(_ event: QueryEvent?, to running: RunningQuery) {
        guard let group = running.group else {
            running.waiter?.resume(returning: event)
            running.waiter = nil
            return
        }
        group.ready.append(QueryGroupEvent(query: running.id, event: event))
        if event == nil {
            group.members.remove(running.id)
            running.group = nil
        }
        guard group.readerWaits else { return }
        if holdingWakes > 0 {
            if !group.wakeQueued {
                group.wakeQueued = true
                groupsToWake.append(group)
            }
        } else {
            wake(group)
        }
    }

    private func wake(_ group: Group) {
        guard !group.ready.isEmpty else { return }
        if let waiter = group.waiter {
            group.waiter = nil
            waiter.resume(returning: group.handOut())
        } else if group.pollerWaits {
            // The poller takes the events itself (``takeEvents(_:)``); it only needs the nudge.
            group.pollerWaits = false
            group.onReady?()
        }
    }

    private func holdWakes() { holdingWakes += 1 }

    private func releaseWakes() {
        holdingWakes -= 1
        guard holdingWakes == 0, !groupsToWake.isEmpty else { return }
        let groups = groupsToWake
        groupsToWake.removeAll()
        for group in groups {
            group.wakeQueued = false
            wake(group)
        }
    }

    private func timerFired(_ id: QueryID) {
        // Cancelled after its sleep ended but before it got here: the lifecycle moved on.
        guard let running = runningQueries[id], !Task.isCancelled else { return }
        running.timer = nil
        perform(running.lifecycle.timerFired(now: clock.now()), running)
    }

    /// The next event of a query; nil when it has stopped and nothing is left.
    func nextEvent(_ id: QueryID) async -> QueryEvent? {
        guard let running = runningQueries[id] else { return nil }
        // One reader per query: a second one, or a lone one of a query its group reads, gets nil.
        if running.lifecycle.readerIsWaiting || running.group != nil { return nil }
        return await withCheckedContinuation { continuation in
            running.waiter = continuation
            perform(running.lifecycle.readerWaits(now: clock.now()), running)
        }
    }

    /// A reader went away (its task was cancelled): stop waiting for it.
    func cancelWait(_ id: QueryID) {
        guard let running = runningQueries[id] else { return }
        perform(running.lifecycle.readerCancelled(), running)
    }

    // MARK: - Groups

    /// A new group of queries read together; add queries with ``join(_:group:)``, read them with
    /// ``nextEvents(_:)``, end it with ``closeGroup(_:)``.
    ///
    /// - Parameter onReady: for a reader that polls with ``takeEvents(_:)`` rather than waiting in
    ///   ``nextEvents(_:)``: called (on this actor; it must not block) when events are ready
    ///   after a poll found none.
    public func makeGroup(onReady: (@Sendable () -> Void)? = nil) -> QueryGroupID {
        let id = QueryGroupID(rawValue: nextGroupID)
        nextGroupID += 1
        groups[id] = Group(onReady: onReady)
        return id
    }

    /// From now on the query's events are read through `group` (from its first, `gatheringStarted`).
    /// A query already read alone, or in a group, stays with its reader.
    public func join(_ id: QueryID, group: QueryGroupID) {
        guard let running = runningQueries[id], let group = groups[group], running.group == nil, running.waiter == nil,
              !running.lifecycle.readerIsWaiting else { return }
        running.group = group
        group.members.insert(id)
        perform(running.lifecycle.readerWaits(now: clock.now()), running)
    }

    /// The next events of a group's queries: every query's that is due, at least one; a query
    /// appears at most once, and with nil when it has ended (stopped and read out, or released).
    /// Each query handed out waits until this is called again: a reader that does not come back
    /// leaves each query one event in hand and the rest coalesced (guarantee 7). Nil when the
    /// group is closed (or already has a reader, or the task was cancelled).
    public nonisolated func nextEvents(_ group: QueryGroupID) async -> [QueryGroupEvent]? {
        await withTaskCancellationHandler {
            await waitForEvents(group)
        } onCancel: {
            Task { await self.closeGroup(group) }
        }
    }

    private func waitForEvents(_ id: QueryGroupID) async -> [QueryGroupEvent]? {
        guard let group = groups[id], group.waiter == nil, !Task.isCancelled else { return nil }
        if let events = rearm(group) { return events }
        return await withCheckedContinuation { continuation in
            group.waiter = continuation
        }
    }

    /// The events of a group's queries that are due now, without waiting: ``nextEvents(_:)`` for
    /// a reader that waits for several things at once (the server's per-connection outbox).
    /// Empty: none is due, and the group's `onReady` is called once when some are. As with
    /// ``nextEvents(_:)``, the queries handed out are asked for their next event only at the
    /// next call. Nil when the group is closed.
    public func takeEvents(_ id: QueryGroupID) -> [QueryGroupEvent]? {
        guard let group = groups[id] else { return nil }
        if let events = rearm(group) { return events }
        group.pollerWaits = true
        return []
    }

    /// Asks the queries handed out last time for their next event; what is ready then, or nil.
    private func rearm(_ group: Group) -> [QueryGroupEvent]? {
        holdWakes()
        let unarmed = group.unarmed
        group.unarmed.removeAll(keepingCapacity: true)
        for query in unarmed {
            guard let running = runningQueries[query] else {
                // Released while its last event was in the reader's hands.
                if group.members.remove(query) != nil { group.ready.append(QueryGroupEvent(query: query, event: nil)) }
                continue
            }
            guard running.group === group, !running.lifecycle.readerIsWaiting else { continue }
            perform(running.lifecycle.readerWaits(now: clock.now()), running)
        }
        releaseWakes()
        return group.ready.isEmpty ? nil : group.handOut()
    }

    /// Ends a group: its reader gets nil, its queries are read by no one (release them).
    public func closeGroup(_ id: QueryGroupID) {
        guard let group = groups.removeValue(forKey: id) else { return }
        for query in group.members {
            guard let running = runningQueries[query], running.group === group else { continue }
            running.group = nil
            perform(running.lifecycle.readerCancelled(), running)
        }
        group.members.removeAll()
        group.waiter?.resume(returning: nil)
        group.waiter = nil
    }
}
