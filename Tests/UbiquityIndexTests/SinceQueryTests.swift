import Synchronization
import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// Clock tokens and `since` answers on the engine (a scripted source; the daemon over a real
/// socket and real files is in UbiquityServerTests/SinceQueryDaemonTests).
@Suite("Since queries")
struct SinceQueryTests {
    typealias Harness = QueryEngineTests.Harness

    /// A one-shot gathering: its results and the clock they are as of, and the since answer.
    func gather(_ h: Harness, _ text: String = "name LIKE 'Item_*'", since: HistoryClock? = nil)
        async throws -> (results: [ResultItem], clock: HistoryClock, since: SinceAnswer?) {
        let id = try await h.engine.start(try h.spec(text, live: false), since: since)
        var events = h.engine.events(id).makeAsyncIterator()
        while let event = try await nextEvent(&events) {
            if case .gatheringFinished(let results, let clock?, let answer, _) = event {
                await h.engine.release(id)
                return (Array(results), clock, answer)
            }
        }
        Issue.record("no gatheringFinished with a clock")
        throw CancellationError()
    }

    func difference(_ answer: SinceAnswer?) -> QueryDelta? {
        if case .changes(let delta, _)? = answer { return delta }
        return nil
    }

    func names(_ items: [ResultItem]) -> [String] { items.map { String($0.path.split(separator: "/").last ?? "") } }

    @Test func aTokenRoundTripsAndOnlyExactTokensParse() {
        let clock = HistoryClock(epoch: 0x3f2a_9c0d_5e7b_1a44, sequence: 17)
        #expect(clock.token == "c1-3f2a9c0d5e7b1a44-17")
        #expect(HistoryClock(token: clock.token) == clock)
        #expect(HistoryClock(token: "c1-0000000000000001-0") == HistoryClock(epoch: 1, sequence: 0))
        // Every digit of both numbers, at their ends: the token is the epoch in 16 hex digits and the sequence in decimal.
        for (epoch, sequence) in [(UInt64(0), UInt64(0)), (.max, .max), (0xf, 10), (1 << 63, 9), (0x0123_4567_89ab_cdef, 1_000_000)] {
            let expected = "c1-" + String(repeating: "0", count: 16 - String(epoch, radix: 16).count) + String(epoch, radix: 16)
                + "-" + String(sequence)
            let clock = HistoryClock(epoch: epoch, sequence: sequence)
            #expect(clock.token == expected)
            #expect(HistoryClock(token: clock.token) == clock)
        }
        for bad in ["", "c1-", "c1-3f2a9c0d5e7b1a44", "c1-3f2a9c0d5e7b1a44-", "c1-3F2A9C0D5E7B1A44-1", "c2-3f2a9c0d5e7b1a44-1",
                    "c1-3f2a9c0d5e7b1a4-1", "c1-3f2a9c0d5e7b1a44-1-2", "c1-3f2a9c0d5e7b1a44--1", "c1-3f2a9c0d5e7b1a44-+1",
                    "c1-3f2a9c0d5e7b1a44-18446744073709551616", "c1-3f2a9c0d5e7b1a44-1 ", String(repeating: "9", count: 100)] {
            #expect(HistoryClock(token: bad) == nil, "\(bad) parsed")
        }
    }

    /// Every kind of change between two clocks, in separate batches, answered exactly: what
    /// entered the query (created, renamed in), what left it (deleted, renamed out), what
    /// changed in place or by a rename within it; and nothing for an item made and deleted.
    @Test func theAnswerIsExactlyWhatChangedForTheQuery() async throws {
        var h = Harness(paths: ["Documents/Item_1", "Documents/Item_2", "Documents/Item_4", "Documents/Item_5", "Documents/y",
                                "Documents/z"])
        defer { h.finish() }
        let before = try await gather(h)
        #expect(names(before.results) == ["Item_1", "Item_2", "Item_4", "Item_5"])
        let c = h.tree.container
        h.source.send([.stat(c, ["Documents", "Item_3"], h.tree.file(3))])
        h.source.send([.stat(c, ["Documents", "Item_1"], h.tree.file(100))])
        h.source.send([.move(c, from: ["Documents", "Item_2"], to: ["Documents", "Item_9"], stat: nil)])
        h.source.send([.remove(c, ["Documents", "Item_4"])])
        h.source.send([.move(c, from: ["Documents", "Item_5"], to: ["Documents", "x"], stat: nil)])
        h.source.send([.move(c, from: ["Documents", "y"], to: ["Documents", "Item_6"], stat: nil)])
        h.source.send([.stat(c, ["Documents", "Item_7"], h.tree.file())])
        h.source.send([.remove(c, ["Documents", "Item_7"])])
        h.source.send([.stat(c, ["Documents", "z"], h.tree.file(55))])   // not in the query
        let after = try await gather(h, since: before.clock)
        #expect(after.clock.epoch == before.clock.epoch && after.clock.sequence > before.clock.sequence)
        guard let delta = difference(after.since) else {
            Issue.record("expected the difference, got \(String(describing: after.since))")
            return
        }
        #expect(names(delta.added) == ["Item_3", "Item_6"])
        #expect(names(delta.changed) == ["Item_1", "Item_9"])
        #expect(delta.changed.first?.values[.size] == .integer(100))
        #expect(delta.changed.last?.oldPath?.hasSuffix("/Documents/Item_2") == true)
        #expect(names(delta.removed) == ["Item_4", "Item_5"])
        #expect(names(after.results) == ["Item_1", "Item_3", "Item_6", "Item_9"])
        // Since the newest clock: nothing.
        let again = try await gather(h, since: after.clock)
        #expect(difference(again.since) == QueryDelta())
    }

    @Test func tokensItCannotAnswerGetTheFullSetAndWhy() async throws {
        var limits = EngineLimits()
        limits.history = ChangeHistory.Retention(maxChanges: 3, maxAge: .seconds(3600))
        var h = Harness(paths: ["Documents/Item_1"], limits: limits)
        defer { h.finish() }
        let first = try await gather(h)
        let otherEpoch = HistoryClock(epoch: first.clock.epoch &+ 1, sequence: first.clock.sequence)
        #expect(try await gather(h, since: otherEpoch).since == .fresh(.otherEpoch))
        let ahead = HistoryClock(epoch: first.clock.epoch, sequence: first.clock.sequence + 1)
        #expect(try await gather(h, since: ahead).since == .fresh(.ahead))
        // Four changes with room for three: the first clock is past the retention, a later one is not.
        for i in 2...3 { h.source.send([.stat(h.tree.container, ["Documents", "Item_\(i)"], h.tree.file())]) }
        let middle = try await gather(h)
        for i in 4...5 { h.source.send([.stat(h.tree.container, ["Documents", "Item_\(i)"], h.tree.file())]) }
        let last = try await gather(h, since: first.clock)
        #expect(last.since == .fresh(.pastRetention))
        #expect(names(last.results) == ["Item_1", "Item_2", "Item_3", "Item_4", "Item_5"])
        #expect(names(difference(try await gather(h, since: middle.clock).since)?.added ?? []) == ["Item_4", "Item_5"])
    }

    @Test func historyOlderThanTheAgeLimitIsLetGo() async throws {
        let now = Mutex<Int64>(1_000_000)
        var limits = EngineLimits()
        limits.history = ChangeHistory.Retention(maxChanges: 100, maxAge: .seconds(60))
        var h = Harness(paths: ["Documents/Item_1"], limits: limits, wallClock: { now.withLock { $0 } })
        defer { h.finish() }
        let token = try await gather(h).clock
        h.source.send([.remove(h.tree.container, ["Documents", "Item_1"])])
        #expect(names(difference(try await gather(h, since: token).since)?.removed ?? []) == ["Item_1"])
        now.withLock { $0 += 61 }
        h.source.send([.stat(h.tree.container, ["Documents", "Item_2"], h.tree.file())])
        #expect(try await gather(h, since: token).since == .fresh(.pastRetention))
    }

    /// Random files, renames, edits and deletions in random batches, tokens taken at random
    /// moments: for every token, its results with the `since` answer applied are exactly the
    /// results of a query started now (paths and attribute values).
    @Test(arguments: Array(1...20) as [UInt64])
    func theAnswerAppliedToTheOldResultsIsTheNewResults(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        var h = Harness(paths: ["Documents/"])
        defer { h.finish() }
        let c = h.tree.container
        let names = (0..<12).map { $0 % 3 == 0 ? "other\($0)" : "Item_\($0)" }
        var present = Set<String>()
        var taken: [(results: [ResultItem], clock: HistoryClock)] = []
        for _ in 0..<40 {
            var batch: [FileSystemChange] = []
            for _ in 0..<rng.int(1...4) {
                let name = rng.pick(names)
                if !present.contains(name) {
                    batch.append(.stat(c, ["Documents", name], h.tree.file(Int64(rng.int(1...50)))))
                    present.insert(name)
                } else if rng.chance(0.3) {
                    batch.append(.remove(c, ["Documents", name]))
                    present.remove(name)
                } else if rng.chance(0.5), let target = names.first(where: { !present.contains($0) && rng.chance(0.5) }) {
                    batch.append(.move(c, from: ["Documents", name], to: ["Documents", target], stat: nil))
                    present.remove(name)
                    present.insert(target)
                } else {
                    batch.append(.stat(c, ["Documents", name], h.tree.file(Int64(rng.int(1...50)))))
                }
            }
            h.source.send(batch)
            if rng.chance(0.3) {
                let snapshot = try await gather(h)
                taken.append((snapshot.results, snapshot.clock))
            }
        }
        let now = try await gather(h)
        for old in taken {
            let answer = try await gather(h, since: old.clock)
            guard let delta = difference(answer.since) else {
                Issue.record("seed \(seed): no difference for \(old.clock)")
                continue
            }
            var view = [String: [Attribute: Value]]()
            for item in old.results { view[item.path] = item.values }
            // As a client applies it: every place left first (a changed item may move into a place
            // another changed item left), then every item where it is now.
            for item in delta.removed { view[item.path] = nil }
            for item in delta.changed { view[item.oldPath ?? item.path] = nil }
            for item in delta.changed { view[item.path] = item.values }
            for item in delta.added {
                #expect(view[item.path] == nil, "seed \(seed): \(item.path) added but already there")
                view[item.path] = item.values
            }
            let expected = Dictionary(uniqueKeysWithValues: now.results.map { ($0.path, $0.values) })
            #expect(view == expected, "seed \(seed), since \(old.clock)")
        }
    }
}
