import Synchronization
import Testing
import UbiquityBinary
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// Answers remembered at a clean shutdown: the file gives them back exactly and refuses damage;
/// an engine still loading its saved index answers a query asking for freshness "saved" from one
/// at once, then gathers it again on the loaded index (a reset only when that differs), and
/// everything else waits for the index.
@Suite("Remembered answers", .timeLimit(.minutes(1)))
struct RememberedAnswerTests {
    typealias Source = UnverifiedAnswerCrawlHoldTests.CountingSource

    static func spec(live: Bool = true, freshness: QueryFreshness = .saved) throws -> QuerySpecification {
        QuerySpecification(predicate: try MetadataPredicate(parsing: "name LIKE 'Item_*'"), attributes: [.name, .size],
                           batchingInterval: .zero, live: live, freshness: freshness)
    }

    /// A saved index of `count` `Item_` files, its snapshot's bytes (id 7, a clean shutdown's).
    static func saved(_ count: Int) -> (descriptor: ContainerDescriptor, index: MetadataIndex, snapshot: [UInt8]) {
        var tree = TreeBuilder()
        let index = ListingPartsTests.index(tree.descriptor, applyingWhole: tree.listing((0..<count).map { "Documents/Item_\($0)" }))
        var history = ChangeHistory(epoch: 9)
        _ = history.handOut()
        let snapshot = IndexSnapshot.encode(IndexSnapshot.View(index, history: history), snapshotID: 7, savedAt: 0, bootID: "b",
                                            final: true, continues: nil)
        return (tree.descriptor, index, snapshot)
    }

    static func restore(_ snapshot: [UInt8], _ descriptor: ContainerDescriptor) throws -> RestoredIndex {
        try RestoredIndex.restore(snapshot: snapshot, journal: nil, containers: [descriptor], retention: .init(), now: 0, bootID: "b")
    }

    /// What `index` answers `specification`, remembered under its key.
    static func answer(_ specification: QuerySpecification, _ index: MetadataIndex, _ descriptor: ContainerDescriptor) -> RememberedAnswer {
        RememberedAnswer(key: RememberedAnswer.key(for: specification, containers: [descriptor]),
                         clock: HistoryClock(epoch: 9, sequence: 0),
                         results: LiveQuery(specification, index: index, context: EvaluationContext()).gather(), snapshotID: 7)
    }

    // MARK: - The file

    @Test func theFileGivesTheAnswersBackAndOnlyForItsSnapshot() throws {
        let (descriptor, index, _) = Self.saved(20)
        let gathered = Self.answer(try Self.spec(), index, descriptor)
        let handMade = RememberedAnswer(key: "k", clock: HistoryClock(epoch: 1, sequence: 2), results: ResultSet([
            ResultItem(identity: ItemIdentity(id: 3, generation: 4), path: "/a/b/é",
                       values: [.size: .integer(-5), .userTags: .list([.string("x"), .string("")]), .contentChangeDate: .date(1.5)]),
            ResultItem(identity: ItemIdentity(id: 9, generation: 0), path: "top",
                       values: [.size: .double(0.25), .userTags: .null, .name: .string("top")]),
        ]))
        let bytes = RememberedAnswers.encode([gathered, handMade], snapshotID: 7)
        let back = try RememberedAnswers.decode(bytes, journal: IndexJournal.header(snapshotID: 7, bootID: ""))
        #expect(back.map(\.key) == [gathered.key, "k"])
        #expect(back.map(\.clock) == [gathered.clock, handMade.clock])
        #expect(back.map(\.snapshotID) == [7, 7])
        #expect(back[0].results == gathered.results && back[0].results.isSameAnswer(as: gathered.results))
        #expect(back[1].results == handMade.results)
        #expect(gathered.results.count == 20)
        // Another snapshot's journal, a journal with records after the snapshot, a journal of a
        // run that did not stop cleanly: not this index's answers.
        #expect(try RememberedAnswers.decode(bytes, journal: IndexJournal.header(snapshotID: 8, bootID: "")).isEmpty)
        #expect(try RememberedAnswers.decode(bytes, journal: IndexJournal.header(snapshotID: 7, bootID: "") + [1]).isEmpty)
        #expect(try RememberedAnswers.decode(bytes, journal: IndexJournal.header(snapshotID: 7, bootID: "b")).isEmpty)
        #expect(try RememberedAnswers.decode(bytes, snapshotID: 8).isEmpty)
    }

    @Test func damageIsAnErrorNeverATrap() throws {
        let (descriptor, index, _) = Self.saved(5)
        let bytes = RememberedAnswers.encode([Self.answer(try Self.spec(), index, descriptor)], snapshotID: 7)
        #expect(throws: SavedIndexError.checksumMismatch) {
            var damaged = bytes
            damaged[damaged.count - 3] ^= 0x40
            return try RememberedAnswers.decode(damaged, snapshotID: 7)
        }
        for cut in [0, 4, 20, bytes.count / 2, bytes.count - 1] {
            #expect(throws: SavedIndexError.self) { try RememberedAnswers.decode(Array(bytes[..<cut]), snapshotID: 7) }
        }
        #expect(throws: SavedIndexError.foreign) { try RememberedAnswers.decode(Array("UBQINDEX".utf8) + bytes.dropFirst(8), snapshotID: 7) }
    }

    /// A file with its body's bytes changed (seeded), its length and checksum made right: each
    /// is an error or answers, never a trap; both happen.
    @Test func damageBehindAGoodChecksumIsAnErrorNeverATrap() throws {
        let (descriptor, index, _) = Self.saved(40)
        var specification = try Self.spec()
        specification.attributes = [.name, .size, .userTags, .contentChangeDate]
        let good = RememberedAnswers.encode([Self.answer(specification, index, descriptor)], snapshotID: 7)
        var generator = SplitMix64(seed: 20261127)
        var outcomes = (read: 0, refused: 0)
        for _ in 0..<2_000 {
            var body = Array(good[24...])
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                body[Int.random(in: 8..<body.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let file = Self.sealed(body)
            do {
                _ = try RememberedAnswers.decode(file, snapshotID: 7)
                outcomes.read += 1
            } catch {
                outcomes.refused += 1
            }
        }
        #expect(outcomes.read > 0 && outcomes.refused > 0, "\(outcomes)")
    }

    /// Counts that would make the reader ask for more memory than the file could describe — an
    /// attribute many times with a million results, lists of a million nothings — are refused.
    @Test func countsPastWhatTheBytesDescribeAreRefused() throws {
        var writer = ByteWriter()
        writer.fixed64(7)
        writer.varint(1)
        writer.string("k")
        writer.fixed64(1)
        writer.fixed64(1)
        writer.varint(1_000)
        for _ in 0..<1_000 { writer.string("kMDItemFSSize") }
        #expect(throws: SavedIndexError.self) { try RememberedAnswers.decode(Self.sealed(writer.bytes), snapshotID: 7) }

        var twice = ByteWriter()
        twice.fixed64(7)
        twice.varint(1)
        twice.string("k")
        twice.fixed64(1)
        twice.fixed64(1)
        twice.varint(2)
        twice.string("kMDItemFSSize")
        twice.string("size")
        #expect(throws: SavedIndexError.invalid("the attribute 'size' twice")) {
            try RememberedAnswers.decode(Self.sealed(twice.bytes), snapshotID: 7)
        }

        // One result whose one value is a list of five million `null`s (a byte each).
        var lists = ByteWriter()
        lists.fixed64(7)
        lists.varint(1)
        lists.string("k")
        lists.fixed64(1)
        lists.fixed64(1)
        lists.varint(1)
        lists.string("kMDItemUserTags")
        lists.bool(true)
        lists.varint(0)
        lists.varint(1)
        lists.varint(1)
        lists.varint(0)
        lists.zigzag(-1)
        lists.string("n")
        lists.byte(8)
        lists.varint(5_000_000)
        lists.append(contentsOf: [UInt8](repeating: 1, count: 5_000_000))
        #expect(throws: SavedIndexError.invalid("more than \(RememberedAnswers.maxValues) values")) {
            try RememberedAnswers.decode(Self.sealed(lists.bytes), snapshotID: 7)
        }
    }

    /// A body in a file of format 1, its length and checksum right.
    static func sealed(_ body: [UInt8]) -> [UInt8] {
        var file = ByteWriter()
        file.append(contentsOf: Array("UBQANSW1".utf8))
        file.fixed32(1)
        file.fixed64(UInt64(body.count))
        file.fixed32(CRC32.checksum(body))
        file.append(contentsOf: body)
        return file.bytes
    }

    // MARK: - The engine

    /// An engine loading its index, and a query it answered from `remembered`, whose answer's
    /// three events (started, progress, finished) its reader already took.
    static func answeredFromMemory(_ remembered: RememberedAnswer,
                                   _ descriptor: ContainerDescriptor) async throws -> (QueryEngine, QueryID) {
        let engine = QueryEngine(containers: [descriptor], source: Source(), restoring: true, remembered: [remembered])
        let id = try await engine.start(Self.spec())
        var events = engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = await events.next() }
        return (engine, id)
    }

    /// A reset's results; nil for any other event.
    static func resetResults(_ event: QueryEvent?) -> ResultSet? {
        guard case .reset(let results, _)? = event else { return nil }
        return results
    }

    /// Waits (for at most ten seconds) until `count` callers wait for the index to load.
    static func waiting(_ engine: QueryEngine, _ count: Int) async throws {
        let reached = try await firstWithin(10) { () async -> Bool in
            await engine.untilWaitingForRestore(count)
            return true
        }
        try #require(reached == true, "fewer than \(count) wait for the index")
    }

    @Test func aRememberedAnswerComesBeforeTheIndexAndGoesOnWhenTheIndexGivesItAgain() async throws {
        let (descriptor, index, snapshot) = Self.saved(30)
        let remembered = Self.answer(try Self.spec(), index, descriptor)
        let engine = QueryEngine(containers: [descriptor], source: Source(), restoring: true, remembered: [remembered])
        let id = try await engine.start(Self.spec())
        var events = engine.events(id).makeAsyncIterator()
        #expect(await events.next() == .gatheringStarted)
        #expect(await events.next() == .gatheringProgress(count: 30))
        guard case .gatheringFinished(let results, let clock, _, let verified)? = await events.next() else {
            Issue.record("no answer before the index")
            return
        }
        #expect(results == remembered.results && clock == remembered.clock && !verified)
        #expect(try await engine.resultCount(id) == 30)
        // An exact query, and one whose answer is not remembered, wait for the index.
        let exact = Task { try await engine.resultCount(engine.start(Self.spec(live: false, freshness: .exact))) }
        var otherSpecification = try Self.spec(live: false)
        otherSpecification.attributes = [.name]
        let other = Task { [otherSpecification] in try await engine.resultCount(engine.start(otherSpecification)) }
        // A one-shot query of the same key is answered from memory too.
        let oneShot = try await engine.start(Self.spec(live: false))
        #expect(try await engine.results(oneShot) == remembered.results)
        try await Self.waiting(engine, 2)
        await engine.adopt(try Self.restore(snapshot, descriptor))
        let counts = (try await exact.value, try await other.value)
        #expect(counts == (30, 30))
        // Gathered again, the same: no reset; the check (a source with nothing to say) verifies it.
        #expect(await events.next() == .verified)
        let replaced = await engine.rememberedAnswersReplaced
        #expect(replaced == 0)
        #expect(try await engine.results(id) == remembered.results)
    }

    @Test func aRememberedAnswerTheIndexDoesNotGiveAgainIsReplacedByAReset() async throws {
        let (descriptor, index, _) = Self.saved(12)
        let remembered = Self.answer(try Self.spec(), index, descriptor)
        let (_, _, snapshot) = Self.saved(15)
        let (engine, id) = try await Self.answeredFromMemory(remembered, descriptor)
        var events = engine.events(id).makeAsyncIterator()
        await engine.adopt(try Self.restore(snapshot, descriptor))
        let results = try #require(Self.resetResults(await events.next()), "no reset")
        #expect(results.count == 15 && results.map(\.path).allSatisfy { $0.contains("/Item_") })
        #expect(await events.next() == .verified)
        let replaced = await engine.rememberedAnswersReplaced
        #expect(replaced == 1)
    }

    /// Answers taken with another snapshot than the one loaded carry another clock: replaced by a
    /// reset even when the results are the same.
    @Test func anAnswerOfAnotherSnapshotIsReplacedEvenWhenTheResultsAreTheSame() async throws {
        let (descriptor, index, snapshot) = Self.saved(10)
        let same = Self.answer(try Self.spec(), index, descriptor)
        let remembered = RememberedAnswer(key: same.key, clock: same.clock, results: same.results, snapshotID: 8)
        let (engine, id) = try await Self.answeredFromMemory(remembered, descriptor)
        var events = engine.events(id).makeAsyncIterator()
        await engine.adopt(try Self.restore(snapshot, descriptor))
        let results = try #require(Self.resetResults(await events.next()), "no reset")
        #expect(results == same.results)
        #expect(await events.next() == .verified)
    }

    /// A query with `since` is answered from the loaded index's history, never from memory.
    @Test func aQueryWithSinceWaitsForTheIndex() async throws {
        let (descriptor, index, snapshot) = Self.saved(6)
        let remembered = Self.answer(try Self.spec(), index, descriptor)
        let engine = QueryEngine(containers: [descriptor], source: Source(), restoring: true, remembered: [remembered])
        let since = Task { try await engine.start(Self.spec(), since: HistoryClock(epoch: 9, sequence: 0)) }
        try await Self.waiting(engine, 1)
        await engine.adopt(try Self.restore(snapshot, descriptor))
        let id = try await since.value
        #expect(try await engine.resultCount(id) == 6)
    }

    /// With no index to load (it was refused), the answer stands until the crawl's check, then is
    /// replaced by what the crawl found (nothing here), then verified.
    @Test func withNoIndexLoadedTheAnswerIsReplacedAfterTheCheck() async throws {
        let (descriptor, index, _) = Self.saved(8)
        let remembered = Self.answer(try Self.spec(), index, descriptor)
        let (engine, id) = try await Self.answeredFromMemory(remembered, descriptor)
        var events = engine.events(id).makeAsyncIterator()
        await engine.adopt(nil)
        let results = try #require(Self.resetResults(await events.next()), "no reset")
        #expect(results.isEmpty)
        let replaced = await engine.rememberedAnswersReplaced
        #expect(replaced == 1)
        #expect(await events.next() == .verified)
        #expect(try await engine.resultCount(id) == 0)
    }

    /// With no index to load, a query stopped while the crawl's check is under way keeps what it
    /// was answered, and is not gathered again on the crawl's index when the check ends.
    @Test func aQueryStoppedDuringTheCheckIsNotGatheredAgain() async throws {
        let (descriptor, index, _) = Self.saved(8)
        let remembered = Self.answer(try Self.spec(), index, descriptor)
        let source = GatedSource()
        let engine = QueryEngine(containers: [descriptor], source: source, restoring: true, remembered: [remembered])
        let id = try await engine.start(Self.spec())
        await engine.adopt(nil)
        try #require(try await firstWithin(10) { () async -> Bool in await source.untilSyncWaits(); return true } == true,
                     "the check never asked the source")
        try await engine.stop(id)
        source.open()
        let ended = try await firstWithin(10) { () async -> Bool in await engine.untilVerificationsEnded(1); return true }
        try #require(ended == true, "the check never ended")
        #expect(await engine.rememberedAnswersReplaced == 0)
        #expect(await engine.heldMemberCount(id) == 0)
        #expect(try await engine.resultCount(id) == 8)
    }

    /// A source whose `sync` waits until ``open()``: the crawl's check held at its start.
    final class GatedSource: ChangeSource, Sendable {
        private let state = Mutex((open: false, syncs: [CheckedContinuation<Void, Never>](), watchers: [CheckedContinuation<Void, Never>]()))
        func batches() -> AsyncStream<ChangeBatch> { AsyncStream { _ in } }
        func sync() async throws -> UInt64 {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if state.open { return (true, []) }
                    state.syncs.append(continuation)
                    defer { state.watchers.removeAll() }
                    return (false, state.watchers)
                }
                if resumeNow { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
            return 0
        }
        /// Returns once a `sync` waits.
        func untilSyncWaits() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { state -> Bool in
                    if !state.syncs.isEmpty { return true }
                    state.watchers.append(continuation)
                    return false
                }
                if waiting { continuation.resume() }
            }
        }
        func open() {
            let syncs = state.withLock { state in
                state.open = true
                defer { state.syncs.removeAll() }
                return state.syncs
            }
            for sync in syncs { sync.resume() }
        }
    }

    @Test func onlyASavedFreshnessQueryOfTheSameKeyIsAnsweredFromMemory() throws {
        let (descriptor, _, _) = Self.saved(1)
        let base = try Self.spec()
        var otherAttributes = base
        otherAttributes.attributes = [.name]
        var otherBatching = base
        otherBatching.batchingInterval = .seconds(3)
        var moved = descriptor
        moved.root += "-moved"
        let key = RememberedAnswer.key(for: base, containers: [descriptor])
        #expect(RememberedAnswer.key(for: otherBatching, containers: [descriptor]) == key)
        #expect(RememberedAnswer.key(for: otherAttributes, containers: [descriptor]) != key)
        #expect(RememberedAnswer.key(for: base, containers: [moved]) != key)
    }
}
