import Synchronization
import Testing
import UbiquityBinary
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// The saved index: snapshot and journal written by one engine, restored into another as after a
/// restart (or a `kill -9`: whatever the journal holds), and every damaged or hostile file
/// refused. The daemon writing them to its state directory is in UbiquityServerTests.
@Suite("Saved index", .ownThreads)
struct SavedIndexTests {
    /// What the daemon's store keeps on disk, kept in memory.
    final class MemoryPersistence: IndexPersistence {
        let bootID = "boot-1"
        struct Files {
            var snapshot: [UInt8]?
            var journal: [UInt8] = []
            /// Records since a snapshot was taken, for its journal (``beginSnapshot()``).
            var pending: [UInt8]?
            /// What a crash leaves between the snapshot's rename and its journal's: the new
            /// snapshot and the old journal.
            var betweenTheTwo: (snapshot: [UInt8], journal: [UInt8])?
        }
        let files = Mutex(Files())
        /// When set, a save's writing waits for the test (as on a slow disk).
        let hold = Mutex<WriteHold?>(nil)

        func appendToJournal(_ record: [UInt8]) -> Bool {
            files.withLock { files in
                files.pending?.append(contentsOf: record)
                guard files.snapshot != nil else { return files.pending != nil }
                files.journal += record
                return true
            }
        }
        func beginSnapshot() -> UInt64? {
            files.withLock { files in
                files.pending = []
                return files.snapshot == nil ? nil : UInt64(files.journal.count)
            }
        }
        func replace(snapshot: [UInt8], journalHeader: [UInt8]) throws {
            files.withLock { files in
                files.betweenTheTwo = (snapshot, files.journal)
                files.snapshot = snapshot
                files.journal = journalHeader + (files.pending ?? [])
                files.pending = nil
            }
        }
        /// As the daemon's store: the journal cut to its whole records and appended to, or replaced.
        func continueJournal(_ continuation: JournalContinuation, records: [UInt8]) throws {
            files.withLock { files in
                switch continuation {
                case .append(_, let length): files.journal = Array(files.journal.prefix(Int(length))) + records
                case .fresh(_, let header, let carried): files.journal = header + carried + records
                }
            }
        }
        /// Reads back as the daemon's store does (the engine keeps no copy of a written snapshot).
        var readsSnapshotBack: Bool { true }
        func readSnapshot(at offset: Int, into destination: UnsafeMutableRawBufferPointer) -> Bool {
            files.withLock { files in
                guard let snapshot = files.snapshot, offset >= 0, offset <= snapshot.count,
                      destination.count <= snapshot.count - offset else { return false }
                snapshot.withUnsafeBytes {
                    destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + destination.count)]))
                }
                return true
            }
        }
        func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            if let hold = hold.withLock({ $0 }) { await hold.wait() }
            return try work()
        }
        var snapshot: [UInt8]? { files.withLock { $0.snapshot } }
        var journal: [UInt8] { files.withLock { $0.journal } }
    }

    /// Holds a save after it was taken, before anything is written, until ``release()``.
    final class WriteHold: Sendable {
        let reached: AsyncStream<Void>
        private let reachedContinuation: AsyncStream<Void>.Continuation
        private let state = Mutex<(released: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        init() { (reached, reachedContinuation) = AsyncStream.makeStream() }

        func wait() async {
            reachedContinuation.yield()
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    if !state.released { state.waiter = continuation }
                    return state.released
                }
                if go { continuation.resume() }
            }
        }

        func release() {
            state.withLock { state in
                state.released = true
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }

    struct Rig {
        var tree = TreeBuilder()
        let persistence = MemoryPersistence()
        let engine: QueryEngine
        var batches: UInt64 = 0

        init(paths: [String]) async {
            engine = QueryEngine(containers: [tree.descriptor], source: ScriptedSource(), clock: ManualClock(),
                                 wallClock: { 1_800_000_000 }, persistence: persistence)
            let listing = tree.listing(paths)
            await apply([listing])
        }

        mutating func apply(_ changes: [FileSystemChange]) async {
            batches += 1
            await engine.apply(ChangeBatch(sequence: 0, changes: changes))
        }

        /// An engine on what this one saved (or on `files`: what a crash at some moment left), as
        /// a daemon after a restart.
        func restarted(containers: [ContainerDescriptor]? = nil, files: (snapshot: [UInt8], journal: [UInt8]?)? = nil) throws -> QueryEngine {
            let restored = try RestoredIndex.restore(snapshot: files?.snapshot ?? persistence.snapshot ?? [],
                                                     journal: files.map(\.journal) ?? persistence.journal,
                                                     containers: containers ?? [tree.descriptor],
                                                     retention: ChangeHistory.Retention(), now: 1_800_000_000, bootID: "boot-1")
            return QueryEngine(containers: containers ?? [tree.descriptor], source: ScriptedSource(), clock: ManualClock(),
                               wallClock: { 1_800_000_000 }, restored: restored)
        }
    }

    /// What a restart restored (the index itself went to the engine).
    struct Restart {
        var snapshotID: UInt64
        var journalContinuation: JournalContinuation?
        var isJournalContinued: Bool
        var journalBytesIgnored: Int
        var removedContainers: [ContainerID]
    }

    /// A daemon's restart on `persistence`'s files: restored, its journal continued (no snapshot
    /// written), an engine that journals every batch to the same files.
    static func restartContinuing(_ persistence: MemoryPersistence, containers: [ContainerDescriptor],
                                  bootID: String = "boot-1") throws -> (engine: QueryEngine, restored: Restart) {
        var restored = try RestoredIndex.restore(snapshot: try #require(persistence.snapshot), journal: persistence.journal,
                                                 containers: containers, retention: ChangeHistory.Retention(),
                                                 now: 1_800_000_000, bootID: bootID)
        try restored.continueJournal(in: persistence)
        let summary = Restart(snapshotID: restored.snapshotID, journalContinuation: restored.journalContinuation,
                              isJournalContinued: restored.isJournalContinued, journalBytesIgnored: restored.journalBytesIgnored,
                              removedContainers: restored.removedContainers)
        let engine = QueryEngine(containers: containers, source: ScriptedSource(), clock: ManualClock(),
                                 wallClock: { 1_800_000_000 }, restored: restored, persistence: persistence)
        return (engine, summary)
    }

    static func spec(_ text: String = "name LIKE 'Item_*'") throws -> QuerySpecification {
        QuerySpecification(predicate: try MetadataPredicate(parsing: text), sort: [try MetadataSortDescriptor(parsing: "name")],
                           attributes: [.name, .size, .contentChangeDate, .path], live: false)
    }

    /// A one-shot gathering: results, clock and the since answer.
    /// Adds `com.example.other` (holding `Documents/Item_9`) beside the rig's container, takes a
    /// clock, then saves: the start of the tests of containers that change while the daemon is down.
    static func saveWithAnotherContainer(_ rig: inout Rig) async throws -> (other: ContainerDescriptor, clock: HistoryClock) {
        let other = ContainerDescriptor(id: try ContainerID("com.example.other"), root: "/containers/com.example.other")
        await rig.engine.addContainer(other)
        var otherTree = TreeBuilder("com.example.other")
        await rig.apply([otherTree.listing(["Documents/Item_9"])])
        let clock = try await gather(rig.engine).clock
        try await rig.engine.saveIndex()
        return (other, clock)
    }

    static func gather(_ engine: QueryEngine, _ text: String = "name LIKE 'Item_*'", since: HistoryClock? = nil)
        async throws -> (results: [ResultItem], clock: HistoryClock, since: SinceAnswer?) {
        let id = try await engine.start(try spec(text), since: since)
        var events = engine.events(id).makeAsyncIterator()
        while let event = try await nextEvent(&events) {
            if case .gatheringFinished(let results, let clock?, let answer, _) = event {
                await engine.release(id)
                return (Array(results), clock, answer)
            }
        }
        Issue.record("no gatheringFinished with a clock")
        throw CancellationError()
    }

    static func names(_ items: [ResultItem]) -> [String] { items.map { String($0.path.split(separator: "/").last ?? "") } }

    /// A first crawl's names still waiting when the first snapshot is taken are sorted off the
    /// engine, saved whole, and handed back: none waits after the save, a restore takes the saved
    /// order, and lookups find every name.
    @Test func theFirstSnapshotHandsAFirstCrawlsWaitingNamesBack() async throws {
        var tree = TreeBuilder()
        let persistence = MemoryPersistence()
        let engine = QueryEngine(containers: [tree.descriptor], source: ScriptedSource(), clock: ManualClock(),
                                 wallClock: { 1_800_000_000 }, persistence: persistence)
        let listing = tree.listing((0..<2_000).flatMap { ["Documents/file_\($0)", "Documents/Item_\($0)"] })
        for batch in ListingPartsTests.batches(listing, size: 300) { await engine.apply(ChangeBatch(sequence: 0, changes: batch)) }
        #expect(await engine.waitingNameCount == 4_001, "the files and Documents wait")
        try await engine.saveIndex()
        #expect(await engine.waitingNameCount == 0, "the snapshot's filing was taken")
        let restored = try RestoredIndex.restore(snapshot: try #require(persistence.snapshot), journal: persistence.journal,
                                                 containers: [tree.descriptor], retention: ChangeHistory.Retention(),
                                                 now: 1_800_000_000, bootID: "boot-1")
        #expect(restored.nameIndexSource == .saved)
        #expect(try await Self.gather(engine).results.count == 2_000)
        #expect(try await Self.gather(engine, "name LIKE 'file_1*'").results.count == 1_111)
    }

    /// Random creations, edits, renames and deletions; snapshots at random moments, tokens at
    /// random moments; then "a crash": an engine restored from the last snapshot and the journal
    /// answers every token exactly as the engine that handed it out, and both go on alike.
    @Test(arguments: Array(1...20) as [UInt64])
    func aRestoredEngineAnswersEveryTokenAsTheOriginal(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        var rig = await Rig(paths: ["Documents/", "Documents/sub/", "Data/"])
        try await rig.engine.saveIndex()
        let c = rig.tree.container
        let names = (0..<14).map { $0 % 4 == 0 ? "other\($0)" : "Item_\($0)" }
        let folders = [["Documents"], ["Documents", "sub"], ["Data"]]
        var present = Set<[String]>()
        var tokens: [HistoryClock] = []
        func randomBatch() -> [FileSystemChange] {
            var batch: [FileSystemChange] = []
            for _ in 0..<rng.int(1...4) {
                let path = rng.pick(folders) + [rng.pick(names)]
                if !present.contains(path) {
                    batch.append(.stat(c, path, rig.tree.file(Int64(rng.int(1...50)))))
                    present.insert(path)
                } else if rng.chance(0.25) {
                    batch.append(.remove(c, path))
                    present.remove(path)
                } else if rng.chance(0.4) {
                    let target = rng.pick(folders) + [rng.pick(names)]
                    guard !present.contains(target) else { continue }
                    batch.append(.move(c, from: path, to: target, stat: nil))
                    present.remove(path)
                    present.insert(target)
                } else {
                    batch.append(.stat(c, path, rig.tree.file(Int64(rng.int(1...50)))))
                }
            }
            return batch
        }
        for _ in 0..<40 {
            await rig.apply(randomBatch())
            if rng.chance(0.3) { tokens.append(try await Self.gather(rig.engine).clock) }
            if rng.chance(0.1) { try await rig.engine.saveIndex() }
        }
        let restored = try rig.restarted()
        for token in tokens {
            let original = try await Self.gather(rig.engine, since: token)
            let after = try await Self.gather(restored, since: token)
            #expect(after.results == original.results, "seed \(seed)")
            #expect(after.since == original.since, "seed \(seed), since \(token)")
            #expect(after.clock == original.clock)
        }
        // Both go on alike: the same batches give the same ids, clocks and answers.
        let more = (0..<10).map { _ in randomBatch() }
        for batch in more {
            await rig.apply(batch)
            await restored.apply(ChangeBatch(sequence: 0, changes: batch))
        }
        for token in tokens.suffix(3) {
            let original = try await Self.gather(rig.engine, since: token)
            let after = try await Self.gather(restored, since: token)
            #expect(after.since == original.since, "seed \(seed), after more batches, since \(token)")
        }
    }

    /// Format 2: the tag pass's change and a status's deferred tags come back from the journal
    /// as they went in (replayed, a deferred status keeps the tags the snapshot had).
    /// A save is taken at one moment and written while the engine goes on: batches applied and
    /// tokens handed out while it is written are neither lost nor doubled after a restart from
    /// what a crash leaves at any moment — before the write, between the snapshot's rename and
    /// its journal's, after both — nor after further batches.
    @Test(arguments: Array(1...8) as [UInt64])
    func batchesAppliedWhileASaveIsWrittenAreNeitherLostNorDoubled(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        var rig = await Rig(paths: ["Documents/", "Data/"])
        let c = rig.tree.container
        var present: [[String]] = []
        var next = 0
        func randomBatch() -> [FileSystemChange] {
            if !present.isEmpty && rng.chance(0.3) {
                return [.remove(c, present.remove(at: rng.int(0...(present.count - 1))))]
            }
            if !present.isEmpty && rng.chance(0.3) {
                return [.stat(c, rng.pick(present), rig.tree.file(Int64(rng.int(1...50))))]
            }
            next += 1
            let path = [rng.chance(0.5) ? "Documents" : "Data", "Item_\(next)"]
            present.append(path)
            return [.stat(c, path, rig.tree.file(Int64(rng.int(1...50))))]
        }
        var tokens: [HistoryClock] = []
        // One save first when `seed` is even: the save under test then continues a journal.
        if seed % 2 == 0 { try await rig.engine.saveIndex() }
        for _ in 0..<rng.int(1...6) {
            await rig.apply(randomBatch())
            tokens.append(try await Self.gather(rig.engine).clock)
        }

        let hold = WriteHold()
        rig.persistence.hold.withLock { $0 = hold }
        let engine = rig.engine
        let save = Task(executorPreference: ThreadPerJobExecutor.shared) { try await engine.saveIndex() }
        var reached = hold.reached.makeAsyncIterator()
        _ = await reached.next()
        // The save is taken and not written: the engine applies batches and answers meanwhile.
        for _ in 0..<rng.int(1...6) {
            await rig.apply(randomBatch())
            tokens.append(try await Self.gather(rig.engine).clock)
        }
        let beforeTheWrite = (snapshot: rig.persistence.snapshot, journal: rig.persistence.journal)
        hold.release()
        _ = try await save.value
        rig.persistence.hold.withLock { $0 = nil }
        let between = try #require(rig.persistence.files.withLock { $0.betweenTheTwo })
        let afterBoth = (snapshot: try #require(rig.persistence.snapshot), journal: rig.persistence.journal)

        /// A restarted engine's clock, results and answer to every token are the original's.
        func expectRestoredAsOriginal(_ files: (snapshot: [UInt8], journal: [UInt8]?), _ moment: String) async throws {
            let restored = try rig.restarted(files: files)
            #expect(await restored.history.clock == rig.engine.history.clock, "\(moment): the clock")
            #expect(Self.names(try await Self.gather(restored).results) == Self.names(try await Self.gather(rig.engine).results),
                    "\(moment): the results")
            for token in tokens {
                let original = try await Self.gather(rig.engine, since: token).since
                let after = try await Self.gather(restored, since: token).since
                #expect(after == original, "\(moment): the answer to \(token)")
            }
        }
        if let snapshot = beforeTheWrite.snapshot {
            try await expectRestoredAsOriginal((snapshot, beforeTheWrite.journal), "before the write")
            try await expectRestoredAsOriginal((between.snapshot, between.journal), "between the renames")
        } else {
            // No journal was open to continue: the new snapshot is refused until its own exists.
            #expect(throws: SavedIndexError.self) { try rig.restarted(files: (between.snapshot, nil)) }
        }
        try await expectRestoredAsOriginal((afterBoth.snapshot, afterBoth.journal), "after both")
        for _ in 0..<rng.int(1...4) {
            await rig.apply(randomBatch())
            tokens.append(try await Self.gather(rig.engine).clock)
        }
        try await expectRestoredAsOriginal((afterBoth.snapshot, rig.persistence.journal), "after more batches")
        // Without any journal the new snapshot is refused: batches after it may be missing.
        #expect(throws: SavedIndexError.self) { try rig.restarted(files: (afterBoth.snapshot, nil)) }
    }

    /// A snapshot is the index at the moment it was taken, whatever the engine writes while it
    /// is encoded: the columns it shares chunk by chunk are copied by the engine's writes, never
    /// changed under it. Every column is written, in several chunks: statuses, renames (names
    /// and parents), removals (a freed slot's name and flags), creations in freed slots
    /// (generations) and appended ones.
    @Test func aSnapshotTakenBeforeWritesEncodesTheIndexAsItWas() throws {
        var tree = TreeBuilder()
        let c = tree.container
        let count = NameColumn.chunkSize * 2 + 500
        let paths = (0..<count).map { ["Documents", "d\($0 % 7)", "Item_\($0)"] }
        let listing = tree.listing(paths.map { $0.joined(separator: "/") })
        let index = MetadataIndex(), twin = MetadataIndex()
        for each in [index, twin] {
            each.addContainer(tree.descriptor)
            _ = each.apply([listing])
        }
        let history = ChangeHistory(epoch: 1)
        func encoded(_ index: MetadataIndex) -> [UInt8] { encoded(IndexSnapshot.View(index, history: history)) }
        func encoded(_ view: IndexSnapshot.View) -> [UInt8] {
            IndexSnapshot.encode(view, snapshotID: 7, savedAt: 1_800_000_000, bootID: "boot-1", final: true, continues: nil)
        }
        let view = IndexSnapshot.View(index, history: history)
        let before = encoded(view)
        #expect(before == encoded(twin))

        var removals: [FileSystemChange] = [], edits: [FileSystemChange] = []
        for i in 0..<count where i % 101 == 3 { removals.append(.remove(c, paths[i])) }
        for i in 0..<count where i % 101 != 3 && i % 97 == 0 { edits.append(.stat(c, paths[i], tree.file(999))) }
        for i in 0..<count where i % 101 != 3 && i % 211 == 5 {
            edits.append(.move(c, from: paths[i], to: ["Documents", "d\((i + 1) % 7)", "Moved_\(i)"], stat: nil))
        }
        _ = index.apply(removals)
        _ = index.apply(edits)
        _ = index.apply((0..<(removals.count + 50)).map { .stat(c, ["Documents", "New_\($0)"], tree.file(5)) })
        #expect(index.entryCount == twin.entryCount + 50)

        #expect(encoded(view) == before, "the snapshot changed with the index")
        #expect(encoded(index) != before)
        let restored = try RestoredIndex.restore(snapshot: before, journal: nil, containers: [tree.descriptor],
                                                 retention: ChangeHistory.Retention(), now: 1_800_000_000, bootID: "boot-1")
        #expect(contents(restored.index) == contents(twin))
    }

    /// Found by the `saved-index` fuzz target: a container saved with one package extension twice
    /// (`gro` and `GRO`) trapped while the index was restored, so the daemon could not start.
    @Test func aContainerWithAPackageExtensionTwiceIsRefusedNotATrap() throws {
        let c = try ContainerID("com.example.test")
        let index = MetadataIndex()
        index.addContainer(ContainerDescriptor(id: c, root: "/containers/com.example.test",
                                               packageTypes: ["gro": "com.example.grocery.package", "xyz": "com.example.other"]))
        var bytes = IndexSnapshot.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)), snapshotID: 7,
                                         savedAt: 1_800_000_000, bootID: "boot-1", final: true, continues: nil)
        // The second extension becomes the first's capitals; the header's CRC is made right again.
        let xyz = try #require(bytes.firstRange(of: Array("xyz".utf8)))
        bytes.replaceSubrange(xyz, with: Array("GRO".utf8))
        let crc = CRC32.checksum(Array(bytes[24...]))
        bytes.replaceSubrange(20..<24, with: withUnsafeBytes(of: crc.littleEndian) { Array($0) })
        #expect(throws: SavedIndexError.invalid("container com.example.test declares the package extension 'GRO' twice")) {
            try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [], retention: .init(), now: 0, bootID: "boot-1")
        }
        // And a descriptor given both keeps one, the same whatever the order.
        #expect(ContainerDescriptor(id: c, root: "/r", packageTypes: ["gro": "b", "GRO": "a"]).packageTypes == ["gro": "a"])
    }

    /// Found by the `saved-index` fuzz target: a snapshot whose history's sequence was at its
    /// largest trapped on the next batch (one more overflowed), at start.
    @Test func aHistorySequenceAtItsEndIsRefusedNotATrap() throws {
        let history = ChangeHistory(epoch: 1, sequence: .max, horizon: 0, isTracking: true, containerRemovedAt: nil,
                                    entries: [], retention: .init())
        let bytes = IndexSnapshot.encode(IndexSnapshot.View(MetadataIndex(), history: history), snapshotID: 7,
                                         savedAt: 1_800_000_000, bootID: "boot-1", final: true, continues: nil)
        #expect(throws: SavedIndexError.invalid("the history's sequence \(UInt64.max) is at its end")) {
            try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [], retention: .init(), now: 0, bootID: "boot-1")
        }
    }

    @Test func theJournalKeepsTagChangesAndDeferredTags() throws {
        let c = try ContainerID("com.example.test")
        let deferred = FileStat(kind: .regular, size: 3, modified: 5, inode: 9, tagsDeferred: true)
        let changes: [FileSystemChange] = [
            .stat(c, ["a"], deferred),
            // Two names equal as strings, different bytes (a precomposed é, an e and a combining
            // accent): two files, each with its own tags.
            .tags(c, ["d"], directoryInode: 7, ["a": ["x", "y"], "b": ["z"], "caf\u{E9}": ["p"], "cafe\u{301}": ["q"]]),
        ]
        let bytes = IndexJournal.header(snapshotID: 5, bootID: "boot-1") + IndexJournal.encode(.batch(changes, time: 1, tracking: true))
        let decoded = try #require(try IndexJournal.decode(bytes, snapshotID: 5))
        guard case .batch(let back, _, _)? = decoded.records.first, back.count == 2,
              case .stat(_, _, let stat) = back[0], case .tags(_, let path, let inode, let tags) = back[1] else {
            Issue.record("decoded \(decoded.records)")
            return
        }
        #expect(stat == deferred)
        #expect(path == ["d"] && inode == 7 && tags == ["a": ["x", "y"], "b": ["z"], "caf\u{E9}": ["p"], "cafe\u{301}": ["q"]])
        #expect(tags.count == 4)
    }

    /// The index keeps permission bits only (`StatColumn`): a saved status with a file type in
    /// its mode is refused with what was wrong, not cut down.
    @Test func aModeBeyondThePermissionBitsIsRefused() throws {
        let c = try ContainerID("com.example.test")
        let typed = FileStat(kind: .regular, size: 3, mode: 0o100644)
        let bytes = IndexJournal.header(snapshotID: 5, bootID: "boot-1") + IndexJournal.encode(.batch([.stat(c, ["a"], typed)], time: 1, tracking: true))
        #expect(throws: SavedIndexError.invalid("a mode beyond the permission bits (0o100644)")) {
            try IndexJournal.decode(bytes, snapshotID: 5)
        }
        let plain = IndexJournal.header(snapshotID: 5, bootID: "boot-1") + IndexJournal.encode(.batch([.stat(c, ["a"], FileStat(kind: .regular, mode: 0o7777))], time: 1, tracking: true))
        #expect(try IndexJournal.decode(plain, snapshotID: 5)?.records.count == 1)
    }

    @Test func aTornLastJournalRecordIsLeftOut() async throws {
        var rig = await Rig(paths: ["Documents/Item_1"])
        try await rig.engine.saveIndex()
        let c = rig.tree.container
        await rig.apply([.stat(c, ["Documents", "Item_2"], rig.tree.file())])
        let kept = rig.persistence.journal.count
        await rig.apply([.stat(c, ["Documents", "Item_3"], rig.tree.file())])
        let full = rig.persistence.journal
        for cut in kept..<full.count {
            let restored = try RestoredIndex.restore(snapshot: rig.persistence.snapshot!, journal: Array(full[..<cut]),
                                                     containers: [rig.tree.descriptor], retention: .init(), now: 0, bootID: "boot-1")
            #expect(restored.journalRecords == 1)           // Item_2's; the listing came before the snapshot
            #expect(restored.journalBytesIgnored == cut - kept)
            let engine = QueryEngine(containers: [rig.tree.descriptor], source: ScriptedSource(), clock: ManualClock(), restored: restored)
            #expect(Self.names(try await Self.gather(engine).results) == ["Item_1", "Item_2"])
        }
    }

    /// Every byte of a snapshot flipped and every length cut short: refused with a reason, never
    /// a crash and never an index.
    @Test func aDamagedOrTruncatedSnapshotIsRefused() async throws {
        let rig = await Rig(paths: ["Documents/Item_1", "Documents/folder/", "Documents/folder/Item_2", "Data/notes.txt"])
        try await rig.engine.saveIndex()
        let good = rig.persistence.snapshot!
        let goodID = try RestoredIndex.restore(snapshot: good, journal: rig.persistence.journal, containers: [rig.tree.descriptor],
                                               retention: .init(), now: 0, bootID: "boot-1").snapshotID
        for i in good.indices {
            var bad = good
            bad[i] ^= 0x5a
            #expect(throws: SavedIndexError.self, "byte \(i) flipped") {
                try RestoredIndex.restore(snapshot: bad, journal: nil, containers: [rig.tree.descriptor], retention: .init(), now: 0, bootID: "boot-1")
            }
        }
        for length in 0..<good.count {
            #expect(throws: SavedIndexError.self, "cut at \(length)") {
                try RestoredIndex.restore(snapshot: Array(good[..<length]), journal: nil, containers: [rig.tree.descriptor],
                                          retention: .init(), now: 0, bootID: "boot-1")
            }
        }
        #expect(throws: SavedIndexError.foreign) {
            try RestoredIndex.restore(snapshot: Array("{\"not\": \"an index\"}".utf8), journal: nil,
                                      containers: [rig.tree.descriptor], retention: .init(), now: 0, bootID: "boot-1")
        }
        // Written while the engine went on, the snapshot is refused without its journal or with
        // another snapshot's that it does not continue: batches after it may be missing.
        var otherJournal = IndexJournal.header(snapshotID: 1, bootID: "boot-1")
        otherJournal += IndexJournal.encode(.batch([.remove(rig.tree.container, ["Documents", "Item_1"])], time: 0, tracking: true))
        for journal in [nil, otherJournal] {
            #expect(throws: SavedIndexError.self) {
                try RestoredIndex.restore(snapshot: good, journal: journal, containers: [rig.tree.descriptor], retention: .init(),
                                          now: 0, bootID: "boot-1")
            }
        }
        // A damaged journal record whose checksum holds is refused with the rest.
        var badJournal = IndexJournal.header(snapshotID: goodID, bootID: "boot-1")
        badJournal += [1, 0, 0, 0]
        badJournal += withUnsafeBytes(of: CRC32.checksum([9]).littleEndian) { Array($0) }
        badJournal += [9]
        #expect(throws: SavedIndexError.self) {
            try RestoredIndex.restore(snapshot: good, journal: badJournal, containers: [rig.tree.descriptor], retention: .init(), now: 0, bootID: "boot-1")
        }
    }

    /// After a reboot only a clean shutdown's final snapshot is trusted: a journal written in
    /// another boot may have lost records still in the page cache when the machine went down.
    @Test func afterARebootOnlyACleanShutdownsSnapshotIsTrusted() async throws {
        var rig = await Rig(paths: ["Documents/Item_1"])
        try await rig.engine.saveIndex()
        await rig.apply([.stat(rig.tree.container, ["Documents", "Item_2"], rig.tree.file())])
        #expect(throws: SavedIndexError.uncleanReboot) {
            try RestoredIndex.restore(snapshot: rig.persistence.snapshot!, journal: rig.persistence.journal,
                                      containers: [rig.tree.descriptor], retention: .init(), now: 0, bootID: "boot-2")
        }
        try await rig.engine.saveIndex(final: true)
        let restored = try RestoredIndex.restore(snapshot: rig.persistence.snapshot!, journal: rig.persistence.journal,
                                                 containers: [rig.tree.descriptor], retention: .init(), now: 0, bootID: "boot-2")
        let engine = QueryEngine(containers: [rig.tree.descriptor], source: ScriptedSource(), clock: ManualClock(), restored: restored)
        #expect(Self.names(try await Self.gather(engine).results) == ["Item_1", "Item_2"])
    }

    /// A restart goes on with the journal instead of writing a snapshot: batches after it, and
    /// after a second and third restart (one after a torn last record, one with nothing changed,
    /// one after a clean shutdown), come back exactly after "a crash" — every token answered as
    /// the engine that handed it out answers it, the same clock — and no snapshot was written.
    @Test(arguments: Array(1...6) as [UInt64])
    func aRestartContinuesTheJournalAndACrashAfterItRestoresExactly(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        var rig = await Rig(paths: ["Documents/", "Data/"])
        let c = rig.tree.container
        var next = 0
        var present: [[String]] = []
        func randomBatch() -> [FileSystemChange] {
            if !present.isEmpty && rng.chance(0.3) { return [.remove(c, present.remove(at: rng.int(0...(present.count - 1))))] }
            next += 1
            let path = [rng.chance(0.5) ? "Documents" : "Data", "Item_\(next)"]
            present.append(path)
            return [.stat(c, path, rig.tree.file(Int64(rng.int(1...50))))]
        }
        var tokens: [HistoryClock] = []
        try await rig.engine.saveIndex(final: seed % 3 == 0)
        if seed % 3 != 0 {
            for _ in 0..<rng.int(1...4) {
                await rig.apply(randomBatch())
                tokens.append(try await Self.gather(rig.engine).clock)
            }
        }
        let snapshot = try #require(rig.persistence.snapshot)
        if seed % 2 == 0 {
            // A record cut short by the crash: left out, and cut off before the next is appended.
            let torn = IndexJournal.encode(.batch([.stat(c, ["Documents", "Torn"], rig.tree.file(1))], time: 1_800_000_000, tracking: true))
            rig.persistence.files.withLock { $0.journal += torn.prefix(torn.count - 3) }
        }
        let (first, restored) = try Self.restartContinuing(rig.persistence, containers: [rig.tree.descriptor])
        var engine = first
        #expect(restored.isJournalContinued)
        for round in 0..<3 {
            for _ in 0..<(round == 1 ? 0 : rng.int(1...4)) {
                await engine.apply(ChangeBatch(sequence: 0, changes: randomBatch()))
                tokens.append(try await Self.gather(engine).clock)
            }
            // "A crash": what the files hold now, restored again and continued again.
            let (again, _) = try Self.restartContinuing(rig.persistence, containers: [rig.tree.descriptor])
            #expect(rig.persistence.snapshot == snapshot, "a snapshot was written")
            #expect(await again.history.clock == engine.history.clock, "round \(round): the clock")
            #expect(Self.names(try await Self.gather(again).results) == Self.names(try await Self.gather(engine).results))
            for token in tokens {
                let original = try await Self.gather(engine, since: token).since
                let after = try await Self.gather(again, since: token).since
                #expect(after == original, "round \(round): the answer to \(token)")
            }
            engine = again
        }
        // The first snapshot after the restart continues the journal it went on with; a crash
        // before its journal is in place (between the two renames) restores exactly too.
        try await engine.saveIndex()
        let between = try #require(rig.persistence.files.withLock { $0.betweenTheTwo })
        for files in [between, (snapshot: try #require(rig.persistence.snapshot), journal: rig.persistence.journal)] {
            let restoredAgain = try rig.restarted(files: (files.snapshot, files.journal))
            #expect(await restoredAgain.history.clock == engine.history.clock)
            for token in tokens {
                let original = try await Self.gather(engine, since: token).since
                let after = try await Self.gather(restoredAgain, since: token).since
                #expect(after == original)
            }
        }
        #expect(Self.names(try await Self.gather(engine).results).contains("Torn") == false)
        #expect((restored.journalBytesIgnored > 0) == (seed % 2 == 0))
    }

    /// A container removed from the configuration and one added while the daemon was down: the
    /// restore's own changes are the continued journal's first records, so a crash after it
    /// restores the same containers, items and clock.
    @Test func theRestoresOwnChangesAreJournaled() async throws {
        var rig = await Rig(paths: ["Documents/Item_1"])
        let (other, token) = try await Self.saveWithAnotherContainer(&rig)
        let added = ContainerDescriptor(id: try ContainerID("com.example.added"), root: "/containers/com.example.added")
        let (engine, restored) = try Self.restartContinuing(rig.persistence, containers: [rig.tree.descriptor, added])
        #expect(restored.removedContainers == [other.id])
        var addedTree = TreeBuilder("com.example.added")
        await engine.apply(ChangeBatch(sequence: 0, changes: [addedTree.listing(["Documents/Item_5"])]))
        let (again, _) = try Self.restartContinuing(rig.persistence, containers: [rig.tree.descriptor, added])
        #expect(await again.history.clock == engine.history.clock)
        #expect(Self.names(try await Self.gather(again).results) == ["Item_1", "Item_5"])
        #expect(try await Self.gather(again, since: token).since == .fresh(.containerRemoved))
        #expect(await again.itemCounts() == engine.itemCounts())
    }

    /// A whole container's listing of more entries than ``QueryEngine/journalAlongsideEntries``
    /// (the check of a saved index after a restart) is journaled from a second thread while the
    /// index applies it: the record is the one written alone would be, it is there before the
    /// batch's clock is handed out, and a restart replays it to the same index.
    @Test func aLargeListingJournaledAlongsideItsApplyRestoresExactly() async throws {
        var rig = await Rig(paths: ["Documents/Item_1", "Documents/keep.txt"])
        try await rig.engine.saveIndex()
        let before = try await Self.gather(rig.engine).clock
        let count = QueryEngine.journalAlongsideEntries + 904
        let paths = ["Documents/keep.txt"] + (0..<count).map { "Documents/d\($0 % 7)/Item_\($0).txt" }
        let listing = rig.tree.listing(paths)
        let journalBefore = rig.persistence.journal.count
        await rig.apply([listing])
        #expect(ChangeBatch(sequence: 0, changes: [listing]).listedEntries > QueryEngine.journalAlongsideEntries)
        let after = try await Self.gather(rig.engine)
        // Compared as one Bool: a failure would print both records whole (half a megabyte).
        let asWrittenAlone = Array(rig.persistence.journal[journalBefore...])
            == IndexJournal.encode(.batch([listing], time: 1_800_000_000, tracking: true))
        #expect(asWrittenAlone, "the journal record is not the listing's, as written alone")

        let again = try rig.restarted()
        #expect(await again.itemCounts() == rig.engine.itemCounts())
        let restored = try await Self.gather(again, since: before)
        #expect(Self.names(restored.results) == Self.names(after.results) && after.results.count == count)
        #expect(restored.clock == after.clock)
        guard case .changes(let delta, _)? = restored.since else {
            Issue.record("the restarted engine did not answer the clock from before the listing with its changes")
            return
        }
        #expect(delta.added.count == count && delta.removed.count == 1)
    }

    /// A clean shutdown's final snapshot is trusted after a reboot only while no daemon went on
    /// from it: one that did named its boot in a new journal (written durably, before any clock
    /// went out), so after a power loss — records lost with the page cache or not — it is refused.
    /// A journal of another boot with records is refused as before.
    @Test func aFinalSnapshotGoneOnFromIsNotTrustedAfterAReboot() async throws {
        var rig = await Rig(paths: ["Documents/Item_1"])
        try await rig.engine.saveIndex(final: true)
        let shutdownJournal = rig.persistence.journal
        let snapshot = try #require(rig.persistence.snapshot)
        // The clean shutdown's files: trusted in another boot.
        _ = try RestoredIndex.restore(snapshot: snapshot, journal: shutdownJournal, containers: [rig.tree.descriptor],
                                      retention: .init(), now: 0, bootID: "boot-2")
        let (engine, restored) = try Self.restartContinuing(rig.persistence, containers: [rig.tree.descriptor])
        guard case .fresh? = restored.journalContinuation else {
            Issue.record("a final snapshot's journal was not replaced: \(String(describing: restored.journalContinuation))")
            return
        }
        let fresh = rig.persistence.journal
        await engine.apply(ChangeBatch(sequence: 0, changes: [.stat(rig.tree.container, ["Documents", "Item_2"], rig.tree.file())]))
        // Power loss: the records may be gone, the new journal's header is on disk.
        for journal in [fresh, rig.persistence.journal] {
            #expect(throws: SavedIndexError.uncleanReboot) {
                try RestoredIndex.restore(snapshot: snapshot, journal: journal, containers: [rig.tree.descriptor],
                                          retention: .init(), now: 0, bootID: "boot-2")
            }
        }
        // In the same boot (a crash), the continued journal is used, and appended to.
        let (again, second) = try Self.restartContinuing(rig.persistence, containers: [rig.tree.descriptor])
        #expect(second.journalContinuation == .append(journalOf: restored.snapshotID, length: UInt64(rig.persistence.journal.count)))
        #expect(Self.names(try await Self.gather(again).results) == ["Item_1", "Item_2"])
        // A clean shutdown's journal with records (as an older daemon could leave): another boot's.
        var withRecords = shutdownJournal
        withRecords += IndexJournal.encode(.batch([.remove(rig.tree.container, ["Documents", "Item_1"])], time: 0, tracking: true))
        #expect(throws: SavedIndexError.uncleanReboot) {
            try RestoredIndex.restore(snapshot: snapshot, journal: withRecords, containers: [rig.tree.descriptor],
                                      retention: .init(), now: 0, bootID: "boot-2")
        }
    }

    /// Everything a restore derives — flags, children, conflict counts, package totals, the name
    /// index (built on a thread of its own while the rest is derived) — is what the live index
    /// had: packages and what is inside them, conflict copies beside their original and inside a
    /// package, hidden names, deep folders, and slots freed and reused.
    @Test func aRestoredIndexDerivesWhatTheLiveOneHad() throws {
        var tree = TreeBuilder()
        var paths = ["Documents/", "Documents/list.gro/", "Documents/list.gro/a.json", "Documents/list.gro/b (conflicted copy).json",
                     "Documents/Item_1.txt", "Documents/Item_1.sync-conflict-20261122-034428-NOFER4Z.txt", "Documents/.hidden",
                     "Documents/deep/", "Documents/deep/er/", "Documents/deep/er/list.gro/", "Documents/deep/er/list.gro/x",
                     "Data/", "Data/notes~", "Data/other.gro/"]
        for i in 0..<3000 { paths.append("Documents/d\(i % 13)/Item_\(i)\(i % 5 == 0 ? " (conflicted copy)" : "").txt") }
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(paths)])
        _ = index.apply((0..<3000).filter { $0 % 7 == 3 }.map {
            .remove(tree.container, ["Documents", "d\($0 % 13)", "Item_\($0)\($0 % 5 == 0 ? " (conflicted copy)" : "").txt"])
        })
        index.endBatch()
        _ = index.apply((0..<50).map { .stat(tree.container, ["Documents", "New_\($0)"], tree.file(Int64($0))) })
        let bytes = IndexSnapshot.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)), snapshotID: 1, savedAt: 0,
                                         bootID: "b", final: true, continues: nil)
        let restored = try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [tree.descriptor],
                                                 retention: .init(), now: 0, bootID: "b").index
        #expect(Array(restored.flagsOf) == Array(index.flagsOf))
        #expect(restored.conflictCopies == index.conflictCopies && !index.conflictCopies.isEmpty)
        #expect(restored.nameIndex.contents == index.nameIndex.contents)
        var packages = 0
        for i in 0..<index.flagsOf.count where index.flagsOf[i].contains(.live) {
            let id = ItemID(i)
            #expect(Set(restored.children(id)?.ids ?? []) == Set(index.children(id)?.ids ?? []), "children of #\(i)")
            if index.flagsOf[i].contains(.package) {
                packages += 1
                #expect(restored.packageTotals(id) == index.packageTotals(id), "package #\(i)")
            }
        }
        #expect(packages == 3)
        #expect(contents(restored) == contents(index))
    }

    /// Files whose checksum holds but whose content breaks the index's rules (as a hostile or
    /// buggy writer could make them): each refused with what is wrong.
    @Test func aSnapshotThatContradictsItselfIsRefused() throws {
        let descriptor = TreeBuilder().descriptor
        var tree = TreeBuilder()
        let directory = tree.directory(), file = tree.file()
        struct Slot { var live = true, generation: UInt32 = 0, parent: UInt32, name: String, stat: FileStat }
        func snapshot(_ slots: [Slot], free: [UInt32] = [], history: [(UInt64, UInt32)] = [], sequence: UInt64 = 0) -> [UInt8] {
            var body = ByteWriter()
            body.fixed64(7); body.int64(0); body.string("boot-1"); body.bool(false); body.fixed64(1); body.fixed64(sequence); body.fixed64(0); body.bool(true); body.varint(0)
            body.varint(1); body.container(descriptor)
            body.varint(slots.count)
            for slot in slots {
                body.bool(slot.live); body.varint(slot.generation)
                guard slot.live else { continue }
                body.varint(slot.parent); body.varint(0); body.string(slot.name); body.fileStat(slot.stat)
            }
            body.varint(free.count)
            for id in free { body.varint(id) }
            body.varint(history.count)
            for (sequence, id) in history { body.varint(sequence); body.varint(id); body.int64(0); body.bool(false) }
            var file = ByteWriter()
            // Format 1 (no continuation; read as it is, and trusted without a journal).
            file.append(contentsOf: IndexSnapshot.magic); file.fixed32(1)
            file.fixed64(UInt64(body.bytes.count)); file.fixed32(CRC32.checksum(body.bytes)); file.append(contentsOf: body.bytes)
            return file.bytes
        }
        func restore(_ bytes: [UInt8]) throws(SavedIndexError) {
            _ = try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [descriptor], retention: .init(), now: 0, bootID: "boot-1")
        }
        let root = Slot(parent: 0, name: "/", stat: directory)
        // The well-formed one is accepted, so each refusal below is about its one defect.
        try restore(snapshot([root, Slot(parent: 0, name: "Documents", stat: directory), Slot(parent: 1, name: "a", stat: file),
                              Slot(parent: 1, name: "...", stat: file), Slot(parent: 1, name: String(repeating: "\u{E9}", count: 127) + "x", stat: file)]))
        let cases: [(String, [UInt8])] = [
            ("a cycle", snapshot([root, Slot(parent: 2, name: "x", stat: directory), Slot(parent: 1, name: "y", stat: directory)])),
            ("two names alike", snapshot([root, Slot(parent: 0, name: "a", stat: file), Slot(parent: 0, name: "a", stat: file)])),
            ("a file as a parent", snapshot([root, Slot(parent: 0, name: "a", stat: file), Slot(parent: 1, name: "b", stat: file)])),
            ("a parent out of range", snapshot([root, Slot(parent: 9, name: "a", stat: file)])),
            ("a dead parent", snapshot([root, Slot(live: false, parent: 0, name: "", stat: file), Slot(parent: 1, name: "a", stat: file)],
                                       free: [1])),
            ("a name with a slash", snapshot([root, Slot(parent: 0, name: "a/b", stat: file)])),
            ("a name '..'", snapshot([root, Slot(parent: 0, name: "..", stat: file)])),
            ("a name '.'", snapshot([root, Slot(parent: 0, name: ".", stat: file)])),
            ("an empty name", snapshot([root, Slot(parent: 0, name: "", stat: file)])),
            ("a name with a NUL", snapshot([root, Slot(parent: 0, name: "a\u{0}b", stat: file)])),
            ("a name of 256 bytes", snapshot([root, Slot(parent: 0, name: String(repeating: "\u{E9}", count: 128), stat: file)])),
            ("two names alike, long", snapshot([root, Slot(parent: 0, name: "file_00000001.txt", stat: file),
                                                Slot(parent: 0, name: "file_00000001.txt", stat: file)])),
            ("two roots", snapshot([root, Slot(parent: 1, name: "/", stat: directory)])),
            ("a root that is a file", snapshot([Slot(parent: 0, name: "/", stat: file)])),
            ("a dead slot not free", snapshot([root, Slot(live: false, parent: 0, name: "", stat: file)])),
            ("a live slot in the free list", snapshot([root, Slot(parent: 0, name: "a", stat: file)], free: [1])),
            ("history past the sequence", snapshot([root], history: [(5, 0)], sequence: 3)),
        ]
        for (defect, bytes) in cases {
            #expect(throws: SavedIndexError.self, "\(defect) was accepted") { try restore(bytes) }
        }
        // A name whose bytes are not UTF-8 (short and long: a restore reads names as bytes, not
        // `String`s), the checksum made right.
        for (name, bad) in [("abc", [0x61, 0xFF, 0x63]), ("abcdefghijklmnopq", Array("abcdefgh".utf8) + [0xC3, 0x28] + Array("klmnopq".utf8))] {
            var bytes = snapshot([root, Slot(parent: 0, name: name, stat: file)])
            let at = try #require(bytes.firstRange(of: Array(name.utf8)))
            bytes.replaceSubrange(at, with: bad.map { UInt8($0) })
            let crc = CRC32.checksum(Array(bytes[24...]))
            bytes.replaceSubrange(20..<24, with: withUnsafeBytes(of: crc.littleEndian) { Array($0) })
            #expect(throws: SavedIndexError.invalid("a string is not UTF-8")) { try restore(bytes) }
        }
    }

    /// A container removed from the configuration while the daemon was down: its items are
    /// removed, and a token from before is answered fresh (a client may no longer read them); a
    /// container whose directory changed refuses the whole saved index (a new epoch).
    @Test func containersChangedWhileDownAreFollowedOrRefused() async throws {
        var rig = await Rig(paths: ["Documents/Item_1", "Documents/Item_2"])
        let (other, token) = try await Self.saveWithAnotherContainer(&rig)

        let engine = try rig.restarted(containers: [rig.tree.descriptor])
        let answer = try await Self.gather(engine, since: token)
        #expect(answer.since == .fresh(.containerRemoved))
        #expect(Self.names(answer.results) == ["Item_1", "Item_2"])
        let later = try await Self.gather(engine, since: answer.clock)
        #expect(later.since == .changes(QueryDelta(), since: answer.clock))

        var moved = rig.tree.descriptor
        moved.root = "/elsewhere"
        #expect(throws: SavedIndexError.self) { try rig.restarted(containers: [moved, other]) }
    }
}
