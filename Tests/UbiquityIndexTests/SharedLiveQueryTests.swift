import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// Live queries that ask the same thing share one LiveQuery (`SharedQueryKey`): each change set
/// is applied to it once, and every one of them still hears every change, exactly.
@Suite("Shared live queries")
struct SharedLiveQueryTests {
    typealias Harness = QueryEngineTests.Harness

    func names(_ items: some Collection<ResultItem>) -> [String] { items.map { $0.path.split(separator: "/").last.map(String.init) ?? "" } }

    /// Starts a query and reads its three gathering events.
    func started(_ h: Harness, _ specification: QuerySpecification) async throws -> (QueryID, QueryEvents.AsyncIterator) {
        let id = try await h.engine.start(specification)
        var events = h.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        return (id, events)
    }

    func update(_ events: inout QueryEvents.AsyncIterator) async throws -> QueryDelta? {
        guard case .update(let delta)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return nil
        }
        return delta
    }

    @Test func identicalQueriesShareOneAndEachHearsEveryChangeOnce() async throws {
        var h = Harness(paths: ["Documents/Item_1", "Documents/x"])
        defer { h.finish() }
        let same = try h.spec("name LIKE 'Item_*'")
        var queries: [(QueryID, QueryEvents.AsyncIterator)] = []
        for _ in 0..<3 { queries.append(try await started(h, same)) }
        var otherAttributes = same
        otherAttributes.attributes = [.name]
        var other = try await started(h, otherAttributes)
        #expect(await h.engine.sharedQueriesJoined == 2)
        #expect(await h.engine.sharedLiveQueryCount == 2)

        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file(7))])
        h.source.send([.stat(h.tree.container, ["Documents", "Item_1"], h.tree.file(9))])
        h.source.send([.remove(h.tree.container, ["Documents", "x"])])
        h.source.send([.stat(h.tree.container, ["Documents", "Item_0"], h.tree.file())])
        try await h.engine.synchronize()
        let rescan = await h.engine.currentResults(same)
        #expect(names(rescan) == ["Item_0", "Item_1", "Item_2"])
        for i in queries.indices {
            var added: [String] = [], changed: [String] = []
            while added.count < 2 || changed.isEmpty {
                guard let delta = try await update(&queries[i].1) else { return }
                added += names(delta.added)
                changed += names(delta.changed)
                #expect(delta.removed.isEmpty)
            }
            #expect(added.sorted() == ["Item_0", "Item_2"], "query \(queries[i].0)")
            #expect(changed == ["Item_1"], "query \(queries[i].0)")
            // Applied once: a second application of the same change set would list Item_0 twice.
            #expect(try await h.engine.results(queries[i].0) == rescan, "query \(queries[i].0)")
        }
        var added: [String] = []
        while added.count < 2 {
            guard let delta = try await update(&other.1) else { return }
            added += names(delta.added)
        }
        #expect(added.sorted() == ["Item_0", "Item_2"])
    }

    @Test func aStoppedQueryKeepsItsResultsWhileTheOthersGoOn() async throws {
        var h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let same = try h.spec("name LIKE 'Item_*'")
        let (stopped, _) = try await started(h, same)
        var (going, goingEvents) = try await started(h, same)
        try await h.engine.stop(stopped)
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file())])
        #expect(try await update(&goingEvents).map { names($0.added) } == ["Item_2"])
        #expect(names(try await h.engine.results(stopped)) == ["Item_1"])
        #expect(names(try await h.engine.results(going)) == ["Item_1", "Item_2"])

        // A query started later shares the one still going, and hears what follows with it.
        await h.engine.release(stopped)
        var (later, laterEvents) = try await started(h, same)
        #expect(await h.engine.sharedQueriesJoined == 2)
        h.source.send([.remove(h.tree.container, ["Documents", "Item_1"])])
        #expect(try await update(&goingEvents).map { names($0.removed) } == ["Item_1"])
        #expect(try await update(&laterEvents).map { names($0.removed) } == ["Item_1"])
        #expect(names(try await h.engine.results(later)) == ["Item_2"])

        await h.engine.release(going)
        await h.engine.release(later)
        #expect(await h.engine.sharedLiveQueryCount == 0)
    }

    @Test func queriesThatReadTheClockAreNotShared() async throws {
        let h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let recent = try h.spec("kMDItemFSContentChangeDate >= $time.today(-1)")
        #expect(recent.predicate.readsTheClock)
        #expect(try !h.spec("name LIKE 'Item_*' AND kMDItemFSSize IN {1, 2}").predicate.readsTheClock)
        #expect(try h.spec("NOT (kMDItemFSContentChangeDate IN {$time.now(-60), $time.now})").predicate.readsTheClock)
        _ = try await started(h, recent)
        _ = try await started(h, recent)
        #expect(await h.engine.sharedQueriesJoined == 0)
        #expect(await h.engine.sharedLiveQueryCount == 0)
        // Not live: never applies a change, so never shared either.
        _ = try await h.engine.start(try h.spec("name LIKE 'Item_*'", live: false))
        _ = try await h.engine.start(try h.spec("name LIKE 'Item_*'", live: false))
        #expect(await h.engine.sharedLiveQueryCount == 0)
    }

    /// A stopped query's results are what they were at the stop, not read through its member ids
    /// from the index, whose slots of removed items are reused by new ones.
    @Test func stoppedResultsStayAsTheyWereWhenTheirSlotsAreReused() async throws {
        var h = Harness(paths: ["Documents/Item_1", "Documents/Item_2"])
        defer { h.finish() }
        let oneShot = try await h.engine.start(try h.spec("name LIKE 'Item_*'", live: false))
        let (stopped, _) = try await started(h, try h.spec("name LIKE 'Item_*'"))
        try await h.engine.stop(stopped)
        h.source.send([.remove(h.tree.container, ["Documents", "Item_1"]), .remove(h.tree.container, ["Documents", "Item_2"])])
        try await h.engine.synchronize()
        _ = await h.engine.currentResults(try h.spec("TRUEPREDICATE"))
        h.source.send([.stat(h.tree.container, ["Documents", "secret_a"], h.tree.file()),
                       .stat(h.tree.container, ["Documents", "secret_b"], h.tree.file())])
        try await h.engine.synchronize()
        #expect(names(await h.engine.currentResults(try h.spec("name LIKE 'secret_*'"))) == ["secret_a", "secret_b"])
        for id in [oneShot, stopped] {
            #expect(names(try await h.engine.results(id)) == ["Item_1", "Item_2"], "query \(id)")
            #expect(try await h.engine.resultCount(id) == 2)
        }
    }

    /// A stopped live query keeps its results until it is released, not what it followed the
    /// index with: its members are let go at the stop, whether others shared them or not.
    @Test func aStoppedQueryLetsGoOfItsMembers() async throws {
        let h = Harness(paths: ["Documents/Item_1", "Documents/Item_2"])
        defer { h.finish() }
        let (first, _) = try await started(h, try h.spec("name LIKE 'Item_*'"))
        let (sharing, _) = try await started(h, try h.spec("name LIKE 'Item_*'"))
        let (alone, _) = try await started(h, try h.spec("name LIKE 'Item_2'"))
        #expect(await h.engine.sharedLiveQueryCount == 2)
        #expect(await h.engine.heldMemberCount(first) == 2)
        #expect(await h.engine.heldMemberCount(alone) == 1)
        try await h.engine.stop(first)
        try await h.engine.stop(alone)
        #expect(await h.engine.heldMemberCount(first) == 0)
        #expect(await h.engine.heldMemberCount(alone) == 0)
        #expect(await h.engine.heldMemberCount(sharing) == 2)
        #expect(names(try await h.engine.results(first)) == ["Item_1", "Item_2"])
        #expect(names(try await h.engine.results(alone)) == ["Item_2"])
        try await h.engine.stop(first)      // a second stop changes nothing
        #expect(names(try await h.engine.results(first)) == ["Item_1", "Item_2"])
        h.source.send([.remove(h.tree.container, ["Documents", "Item_1"]), .remove(h.tree.container, ["Documents", "Item_2"])])
        try await h.engine.synchronize()
        #expect(names(try await h.engine.results(sharing)) == [])
        #expect(names(try await h.engine.results(first)) == ["Item_1", "Item_2"])
        #expect(names(try await h.engine.results(alone)) == ["Item_2"])
    }

    /// Sharing a LiveQuery shares results, not what each query asked: a query asking for freshness
    /// "saved" that took the LiveQuery of one asking for exact answers is still remembered at
    /// shutdown, and the exact one is not.
    @Test func eachQueryKeepsWhatItAskedForItsRememberedAnswer() async throws {
        let h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let exact = try h.spec("name LIKE 'Item_*'")
        var saved = exact
        saved.freshness = .saved
        let (first, _) = try await started(h, exact)
        let (second, _) = try await started(h, saved)
        #expect(await h.engine.sharedQueriesJoined == 1)
        await h.engine.rememberAtShutdown([first, second])
        #expect(await h.engine.specificationsToRemember.map(\.freshness) == [.saved])
    }

    /// A container configured anew keeps its number in the index: a query started after that
    /// shares with none started before it.
    @Test func aQueryStartedAfterAReconfigurationSharesWithNoneBefore() async throws {
        let h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let same = try h.spec("name LIKE 'Item_*'")
        _ = try await started(h, same)
        await h.engine.addContainer(h.tree.descriptor)
        _ = try await started(h, same)
        #expect(await h.engine.sharedQueriesJoined == 0)
        #expect(await h.engine.sharedLiveQueryCount == 2)
        _ = try await started(h, same)
        #expect(await h.engine.sharedQueriesJoined == 1)
    }
}
