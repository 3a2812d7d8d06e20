import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// A gathering runs in slices and lets the engine apply batches between them: the batches are
/// folded in, so what it finishes with is exactly a fresh gathering's answer.
@Suite("Sliced gathering")
struct SlicedGatheringTests {
    static func spec(_ text: String) throws -> QuerySpecification {
        QuerySpecification(predicate: try MetadataPredicate(parsing: text), sort: [try MetadataSortDescriptor(parsing: "name")],
                           attributes: [.name, .size], batchingInterval: .zero, live: true)
    }

    /// (path, size) of each result: what must agree with a fresh gathering.
    static func summary(_ items: some Collection<ResultItem>) -> [String] {
        items.map { "\($0.path) \($0.values[.size].map { "\($0)" } ?? "-")" }
    }

    /// The found ids in id order, read from a bitmap: as sorting them would give, on word edges,
    /// and with an id past the bound (which the bitmap cannot hold) sorted instead.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func foundIDsComeInIDOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let bound = random.int(1...5000)
        var found = Set((0..<random.int(0...bound)).map { _ in ItemID(random.int(0...(bound - 1))) })
        found.formUnion([0, ItemID(bound - 1)].filter { _ in random.chance(0.5) })
        found.formUnion([63, 64, 127, 128].filter { $0 < bound })
        let gathering = Gathering(candidates: [], found: found)
        #expect(gathering.foundInIDOrder(below: bound) == found.sorted())
        let beyond = Gathering(candidates: [], found: found.union([ItemID(bound), ItemID.max]))
        #expect(beyond.foundInIDOrder(below: bound) == beyond.found.sorted())
        #expect(Gathering(candidates: []).foundInIDOrder(below: 0).isEmpty)
        // Found at the start, as the name index lists them (in name order): the same order; a
        // batch's insertions and removals then count as in a set.
        var listed = Gathering(found: found.shuffled(using: &random))
        #expect(listed.foundInIDOrder(below: bound) == found.sorted())
        let gone = found.first
        if let gone { listed.removeFound(gone) }
        listed.insertFound(ItemID(bound - 1))
        var expected = found
        if let gone { expected.remove(gone) }
        expected.insert(ItemID(bound - 1))
        #expect(listed.foundInIDOrder(below: bound) == expected.sorted())
        #expect(Gathering(found: [ItemID(bound), 0]).foundInIDOrder(below: bound) == [0, ItemID(bound)])
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func batchesAppliedWhileAGatheringRunsAreFoldedInExactly(seed: UInt64) async throws {
        var limits = EngineLimits()
        limits.gatheringSlice = .zero           // one item per slice: the most interleaving there can be
        var tree = TreeBuilder()
        let source = StartingSource()
        let engine = QueryEngine(containers: [tree.descriptor], source: source, limits: limits, clock: ManualClock())
        let count = 1500
        var names = (0..<count).map { "f\($0)" }
        await engine.apply(ChangeBatch(sequence: 1, changes: [tree.listing(names.map { "Documents/" + $0 })], notices: []))
        // No name hint: every item is evaluated, one per slice.
        let spec = try Self.spec("size > 3")
        let started = Task { try await engine.start(spec) }

        // Batches go in while the gathering walks: once the query is starting (it syncs with
        // the source first), change matching and non-matching items, add, remove and rename,
        // batch after batch; the gathering's 1,500 slices let them in between.
        let starting = try await firstWithin(20) { [syncs = source.syncs] in
            for await _ in syncs { return true }
            return false
        }
        try #require(starting == true, "the query did not start within 20 s")
        var random = SplitMix64(seed: seed)
        var next = count
        for sequence in 2..<80 {
            var changes: [FileSystemChange] = []
            for _ in 0..<random.int(1...6) {
                switch random.int(0...3) {
                case 0:
                    changes.append(.stat(tree.container, ["Documents", random.pick(names)], tree.file(Int64(random.int(0...6)))))
                case 1:
                    let name = "g\(next)"
                    next += 1
                    names.append(name)
                    changes.append(.stat(tree.container, ["Documents", name], tree.file(Int64(random.int(0...6)))))
                case 2 where names.count > 1:
                    let name = names.remove(at: random.int(0...(names.count - 1)))
                    changes.append(.remove(tree.container, ["Documents", name]))
                default:
                    let index = random.int(0...(names.count - 1))
                    let renamed = "r\(next)"
                    next += 1
                    changes.append(.move(tree.container, from: ["Documents", names[index]], to: ["Documents", renamed],
                                         stat: tree.file(Int64(random.int(0...6)))))
                    names[index] = renamed
                }
            }
            await engine.apply(ChangeBatch(sequence: UInt64(sequence), changes: changes, notices: []))
        }
        let id = try await started.value
        #expect(await engine.changesFoldedIntoGatherings > 0, "no batch arrived during the gathering: the test proved nothing")
        let held = try await engine.results(id)
        let fresh = await engine.currentResults(spec)
        #expect(Self.summary(held) == Self.summary(fresh))
        #expect(!fresh.isEmpty)
    }

    @Test func aGatheringThatNeedsNoEvaluationIsDoneAtOnce() async throws {
        var limits = EngineLimits()
        limits.gatheringSlice = .zero
        var tree = TreeBuilder()
        let engine = QueryEngine(containers: [tree.descriptor], source: ScriptedSource(), limits: limits, clock: ManualClock())
        await engine.apply(ChangeBatch(sequence: 1, changes: [tree.listing((0..<100).map { "Documents/Item_\($0)" })], notices: []))
        // The name index answers `LIKE 'Item_*'` completely: nothing to evaluate, no pause.
        let id = try await engine.start(try Self.spec("name LIKE 'Item_*'"))
        #expect(try await engine.results(id).count == 100)
        #expect(await engine.gatheringPauses == 0)
    }
}

/// A source of no batches whose `sync` — the first thing a query's start does — tells the test
/// that the query is starting.
private final class StartingSource: ChangeSource {
    let syncs: AsyncStream<Void>
    private let synced: AsyncStream<Void>.Continuation

    init() { (syncs, synced) = AsyncStream.makeStream(of: Void.self) }

    func batches() -> AsyncStream<ChangeBatch> { AsyncStream { $0.finish() } }

    func sync() async throws -> UInt64 {
        synced.yield()
        return 0
    }
}
