import Synchronization
import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// An answer from the saved index holds the source's crawl until the server says it is written
/// (``QueryEngine/unverifiedAnswersWritten(_:)``); an exact answer holds nothing.
@Suite("Unverified answers hold the crawl")
struct UnverifiedAnswerCrawlHoldTests {
    /// A source of no batches that counts the holds and releases of its crawl.
    final class CountingSource: ChangeSource {
        let counts = Mutex((holds: 0, releases: 0))
        func batches() -> AsyncStream<ChangeBatch> { AsyncStream { _ in } }
        func sync() async throws -> UInt64 { 0 }
        func holdCrawl(for bound: Duration) {
            #expect(bound == QueryEngine.crawlHoldPerUnverifiedAnswer)
            counts.withLock { $0.holds += 1 }
        }
        func releaseCrawl() { counts.withLock { $0.releases += 1 } }
    }

    static func restoredEngine(_ source: CountingSource) throws -> QueryEngine {
        var tree = TreeBuilder()
        let index = ListingPartsTests.index(tree.descriptor, applyingWhole: tree.listing((0..<50).map { "Documents/Item_\($0)" }))
        let bytes = IndexSnapshot.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)), snapshotID: 1, savedAt: 0,
                                         bootID: "b", final: true, continues: nil)
        let restored = try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [tree.descriptor], retention: .init(),
                                                 now: 0, bootID: "b")
        return QueryEngine(containers: [tree.descriptor], source: source, restored: restored)
    }

    static func spec(_ freshness: QueryFreshness, live: Bool) throws -> QuerySpecification {
        QuerySpecification(predicate: try MetadataPredicate(parsing: "name LIKE 'Item_*'"), batchingInterval: .zero, live: live,
                           freshness: freshness)
    }

    @Test(arguments: [true, false])
    func anUnverifiedAnswerHoldsTheCrawlUntilWritten(live: Bool) async throws {
        let source = CountingSource()
        let engine = try Self.restoredEngine(source)
        _ = try await engine.start(Self.spec(.saved, live: live))
        #expect(source.counts.withLock { $0 } == (1, 0), "held while the answer waits to be written")
        engine.unverifiedAnswersWritten(1)
        #expect(source.counts.withLock { $0 } == (1, 1))
    }

    @Test func anExactAnswerHoldsNothing() async throws {
        let source = CountingSource()
        let engine = try Self.restoredEngine(source)
        _ = try await engine.start(Self.spec(.exact, live: false))
        #expect(source.counts.withLock { $0 } == (0, 0))
    }
}
