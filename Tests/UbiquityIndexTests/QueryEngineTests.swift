import Foundation
import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

@Suite("Query engine")
struct QueryEngineTests {
    struct Harness {
        let source = ScriptedSource()
        /// Batching windows pass only when the test advances this: no test waits real time.
        let clock = ManualClock()
        let engine: QueryEngine
        var tree = TreeBuilder()
        let runner: Task<Void, Never>

        init(paths: [String], limits: EngineLimits = EngineLimits(), wallClock: (@Sendable () -> Int64)? = nil) {
            engine = QueryEngine(containers: [tree.descriptor], source: source, limits: limits, clock: clock, wallClock: wallClock)
            source.send([tree.listing(paths)])
            let engine = self.engine
            runner = Task { await engine.run() }
        }

        func spec(_ text: String, interval: Duration = .zero, live: Bool = true) throws -> QuerySpecification {
            QuerySpecification(predicate: try MetadataPredicate(parsing: text), sort: [try MetadataSortDescriptor(parsing: "name")],
                               attributes: [.name, .size], batchingInterval: interval, live: live)
        }

        func finish() {
            source.finish()
            runner.cancel()
        }
    }

    func names(_ items: some Collection<ResultItem>) -> [String] { items.map { $0.path.split(separator: "/").last.map(String.init) ?? "" } }

    @Test func gatheringIsCompleteAndOrdered() async throws {
        var h = Harness(paths: ["Documents/Item_2", "Documents/Item_1", "Documents/x"])
        defer { h.finish() }
        // Made just before the query starts: complete gathering must include it.
        h.source.send([.stat(h.tree.container, ["Documents", "Item_0"], h.tree.file())])
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        var events = h.engine.events(id).makeAsyncIterator()
        #expect(try await nextEvent(&events) == .gatheringStarted)
        #expect(try await nextEvent(&events) == .gatheringProgress(count: 3))
        guard case .gatheringFinished(let results, _, _, _)? = try await nextEvent(&events) else {
            Issue.record("expected gatheringFinished")
            return
        }
        #expect(names(results) == ["Item_0", "Item_1", "Item_2"])
        #expect(try await h.engine.results(id) == results)
    }

    @Test func liveUpdatesArriveAsTheyHappen() async throws {
        var h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        var events = h.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file(7))])
        guard case .update(let delta)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return
        }
        #expect(names(delta.added) == ["Item_2"])
        #expect(delta.added.first?.values[.size] == .integer(7))
        h.source.send([.remove(h.tree.container, ["Documents", "Item_1"])])
        guard case .update(let removal)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return
        }
        #expect(names(removal.removed) == ["Item_1"])
        #expect(removal.added.isEmpty && removal.changed.isEmpty)
    }

    @Test func changesWithinOneBatchingWindowComeAsOneUpdate() async throws {
        var h = Harness(paths: ["Documents/"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'", interval: .seconds(1)))
        var events = h.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        // A reader already waits while the changes arrive: only the window holds them back.
        let reader = Task { [events] in
            var events = events
            return try await nextEvent(&events)
        }
        for i in 1...3 { h.source.send([.stat(h.tree.container, ["Documents", "Item_\(i)"], h.tree.file())]) }
        h.source.send([.stat(h.tree.container, ["Documents", "Item_1"], h.tree.file(99))])   // coalesces into added
        try await h.engine.synchronize()
        h.clock.advance(by: .seconds(1))
        guard case .update(let delta)? = try await reader.value else {
            Issue.record("expected an update")
            return
        }
        #expect(names(delta.added) == ["Item_1", "Item_2", "Item_3"])
        #expect(delta.added.first?.values[.size] == .integer(99))
        #expect(delta.changed.isEmpty)
    }

    @Test func disabledUpdatesAccumulateAndEnableReleasesThemAsOne() async throws {
        var h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        var events = h.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        try await h.engine.disableUpdates(id)
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file())])
        h.source.send([.remove(h.tree.container, ["Documents", "Item_1"])])
        h.source.send([.stat(h.tree.container, ["Documents", "Item_3"], h.tree.file())])
        try await h.engine.synchronize()
        try await h.engine.enableUpdates(id)
        guard case .update(let delta)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return
        }
        #expect(names(delta.added) == ["Item_2", "Item_3"])
        #expect(names(delta.removed) == ["Item_1"])
    }

    /// Creates Item_0…Item_999 while a new query reads every update (the slow subscriber of the
    /// caller reads nothing meanwhile); returns how many additions it saw, once all are applied.
    func thousandFilesReadByAFastSubscriber(_ h: inout Harness) async throws -> Int {
        let fast = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        var fastEvents = h.engine.events(fast).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&fastEvents) }
        var seenByFast = 0
        for i in 0..<1_000 {
            h.source.send([.stat(h.tree.container, ["Documents", "Item_\(i)"], h.tree.file())])
            guard i % 100 == 99 else { continue }
            while seenByFast < i + 1 {
                guard case .update(let delta)? = try await nextEvent(&fastEvents) else {
                    Issue.record("fast subscriber stalled at \(seenByFast)")
                    return seenByFast
                }
                seenByFast += delta.added.count
            }
        }
        try await h.engine.synchronize()
        return seenByFast
    }

    @Test func aSubscriberThatDoesNotReadGetsAResetAndDelaysNobody() async throws {
        var limits = EngineLimits()
        limits.pendingItemsPerQuery = 100
        var h = Harness(paths: ["Documents/"], limits: limits)
        defer { h.finish() }
        let slow = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        let seenByFast = try await thousandFilesReadByAFastSubscriber(&h)
        var slowEvents = h.engine.events(slow).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&slowEvents) }
        guard case .reset(let results, _)? = try await nextEvent(&slowEvents) else {
            Issue.record("expected a reset for the subscriber that fell behind")
            return
        }
        #expect(results.count == 1_000)
        #expect(seenByFast == 1_000)
    }

    /// The server's shape: one reader for many queries. One change that reaches them all comes
    /// back as one call with each query's update; the gathering events come first, once each.
    @Test func aGroupGetsEveryQuerysEventOfABatchInOneCall() async throws {
        var h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let group = await h.engine.makeGroup()
        var ids: [QueryID] = []
        for _ in 0..<10 {
            let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
            await h.engine.join(id, group: group)
            ids.append(id)
        }
        var gathering: [QueryID: [QueryEvent]] = [:]
        while gathering.values.reduce(0, { $0 + $1.count }) < 30 {
            guard let events = try await h.engine.nextEvents(group, within: 10) else { return }
            #expect(Set(events.map(\.query)).count == events.count, "at most one event per query per call")
            for e in events { gathering[e.query, default: []].append(try #require(e.event)) }
        }
        for id in ids {
            let events = try #require(gathering[id])
            #expect(events.count == 3)
            #expect(events.first == .gatheringStarted)
            guard case .gatheringFinished(let results, _, _, _)? = events.last else {
                Issue.record("query \(id): expected gatheringFinished last, got \(events)")
                continue
            }
            #expect(names(results) == ["Item_1"])
        }
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file())])
        let events = try #require(try await h.engine.nextEvents(group, within: 10))
        #expect(events.map(\.query).sorted() == ids)
        for e in events {
            guard case .update(let delta)? = e.event else {
                Issue.record("query \(e.query): expected an update, got \(String(describing: e.event))")
                continue
            }
            #expect(names(delta.added) == ["Item_2"])
        }
        // Released: the query ends for the group's reader; a closed group ends the reader.
        await h.engine.release(ids[0])
        #expect(try await h.engine.nextEvents(group, within: 10) == [QueryGroupEvent(query: ids[0], event: nil)])
        await h.engine.closeGroup(group)
        #expect(await h.engine.nextEvents(group) == nil)
    }

    /// The server outbox's shape: a reader that polls (`takeEvents`) and is nudged by the group's
    /// `onReady` when a poll found nothing gets what a waiting reader would, each query asked for
    /// its next event by the next poll.
    @Test func aPollingReaderIsNudgedWhenEventsAreReady() async throws {
        var h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let nudges = Nudges()
        let group = await h.engine.makeGroup { nudges.nudge() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        await h.engine.join(id, group: group)
        var seen: [QueryEvent] = []
        while seen.count < 3 {
            let events = try #require(await h.engine.takeEvents(group))
            #expect(events.count <= 1, "one event per query per poll")
            if events.isEmpty { try await nudges.wait(within: 10) } else { seen += events.compactMap(\.event) }
        }
        #expect(seen.first == .gatheringStarted)
        // Nothing due: an empty poll, then a nudge once a change arrives.
        #expect(await h.engine.takeEvents(group) == [])
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file())])
        try await nudges.wait(within: 10)
        let events = try #require(await h.engine.takeEvents(group))
        guard case .update(let delta)? = events.first?.event else {
            Issue.record("expected an update, got \(events)")
            return
        }
        #expect(names(delta.added) == ["Item_2"])
        await h.engine.closeGroup(group)
        #expect(await h.engine.takeEvents(group) == nil)
    }

    /// The nudges of a polling group's `onReady`, awaited with a deadline.
    final class Nudges: Sendable {
        private let stream: AsyncStream<Void>
        private let sink: AsyncStream<Void>.Continuation

        init() { (stream, sink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1)) }

        func nudge() { sink.yield() }

        func wait(within seconds: Double) async throws {
            let nudged = try await firstWithin(seconds) { [stream] in
                var next = stream.makeAsyncIterator()
                return await next.next() != nil
            } ?? false
            if !nudged { throw TestDaemonError("no nudge within \(seconds) s") }
        }
    }

    /// Guarantee 7 for a group: a reader that does not come back leaves each query one event in
    /// hand and the rest coalesced (past the limit, a reset), and a lone reader is not delayed.
    @Test func aGroupThatDoesNotReadGetsAResetAndDelaysNobody() async throws {
        var limits = EngineLimits()
        limits.pendingItemsPerQuery = 100
        var h = Harness(paths: ["Documents/"], limits: limits)
        defer { h.finish() }
        let group = await h.engine.makeGroup()
        let slow = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        await h.engine.join(slow, group: group)
        let seenByFast = try await thousandFilesReadByAFastSubscriber(&h)
        // The one event in hand (gatheringStarted), then the rest of the gathering, then the reset.
        var seen: [QueryEvent] = []
        while seen.count < 4 {
            guard let events = try await h.engine.nextEvents(group, within: 10) else { return }
            seen += events.compactMap(\.event)
        }
        #expect(seen.first == .gatheringStarted)
        guard case .reset(let results, _) = seen[3] else {
            Issue.record("expected a reset for the group that fell behind, got \(seen[3])")
            return
        }
        #expect(results.count == 1_000)
        #expect(seenByFast == 1_000)
    }

    @Test func stoppedAndOneShotQueriesEnd() async throws {
        let h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let once = try await h.engine.start(try h.spec("name LIKE 'Item_*'", live: false))
        var events = h.engine.events(once).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        #expect(try await nextEvent(&events) == nil)

        let live = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        var liveEvents = h.engine.events(live).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&liveEvents) }
        try await h.engine.stop(live)
        #expect(try await nextEvent(&liveEvents) == nil)
        #expect(try await h.engine.results(live).count == 1)      // still readable after stop
        await h.engine.release(live)
        await #expect(throws: EngineError.unknownQuery(live)) { try await h.engine.results(live) }
    }

    @Test func noticesReachSubscribers() async throws {
        var h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        var events = h.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        // An overflow rescan: the listing's real differences, then the resync notice.
        let listing = h.tree.listing(["Documents/Item_1", "Documents/Item_2"])
        h.source.send([listing], notices: [.resync(h.tree.container, reason: .queueOverflow)])
        var sawResync = false
        for _ in 0..<3 where !sawResync {
            if case .notice(.resync(let container, _), let changes)? = try await nextEvent(&events) {
                #expect(container == h.tree.container)
                #expect(changes >= 1)
                sawResync = true
            }
        }
        #expect(sawResync)
    }

    @Test func gatheringIsNeverDroppedForNotices() async throws {
        let h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        // 1,000 notices before the reader has read its gathering.
        h.source.send([], notices: Array(repeating: .containerUnavailable(h.tree.container), count: 1_000))
        try await h.engine.synchronize()
        var events = h.engine.events(id).makeAsyncIterator()
        #expect(try await nextEvent(&events) == .gatheringStarted)
        #expect(try await nextEvent(&events) == .gatheringProgress(count: 1))
        guard case .gatheringFinished(let results, _, _, _)? = try await nextEvent(&events) else {
            Issue.record("expected gatheringFinished")
            return
        }
        #expect(names(results) == ["Item_1"])
        let cap = EngineLimits().pendingNoticesPerQuery
        for _ in 0..<cap {
            #expect(try await nextEvent(&events) == .notice(.containerUnavailable(h.tree.container)))
        }
        try await h.engine.stop(id)
        #expect(try await nextEvent(&events) == nil)            // no more than the cap
    }

    @Test func theUpdateReleasedByEnableIsNeverDroppedForNotices() async throws {
        var h = Harness(paths: ["Documents/Item_1"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'"))
        var events = h.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        try await h.engine.disableUpdates(id)
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file())])
        try await h.engine.synchronize()
        try await h.engine.enableUpdates(id)
        h.source.send([], notices: Array(repeating: .containerUnavailable(h.tree.container), count: 1_000))
        try await h.engine.synchronize()
        var notices = 0
        while let event = try await nextEvent(&events) {
            if case .update(let delta) = event {
                #expect(names(delta.added) == ["Item_2"])
                break
            }
            #expect(event == .notice(.containerUnavailable(h.tree.container)))
            notices += 1
        }
        #expect(notices == EngineLimits().pendingNoticesPerQuery)
    }

    @Test func anUpdateWaitsForItsWindowOnTheInjectedClock() async throws {
        var h = Harness(paths: ["Documents/"])
        defer { h.finish() }
        let id = try await h.engine.start(try h.spec("name LIKE 'Item_*'", interval: .seconds(60)))
        var events = h.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        h.source.send([.stat(h.tree.container, ["Documents", "Item_1"], h.tree.file())])
        try await h.engine.synchronize()
        // A whole minute of window, passed in an instant.
        h.clock.advance(by: .seconds(59))
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file())])
        try await h.engine.synchronize()
        h.clock.advance(by: .seconds(1))
        guard case .update(let delta)? = try await nextEvent(&events) else {
            Issue.record("expected an update")
            return
        }
        #expect(names(delta.added) == ["Item_1", "Item_2"])
    }
}
