import Testing
import UbiquityStore

/// A subscriber's unread store changes: folded per row relative to what it last saw, bounded.
@Suite("PendingStoreChanges: coalesced, bounded, never dropped")
struct PendingStoreChangesTests {
    static let laptop = DeviceID("laptop")!
    static let phone = DeviceID("phone")!

    static func row(_ n: UInt64) -> RowRef { RowRef(table: "items", id: RowID(high: 0, low: n)) }

    static func result(inserted: [UInt64] = [], updated: [UInt64: Set<String>] = [:], deleted: [UInt64] = []) -> ImportResult {
        var result = ImportResult()
        result.inserted = inserted.map(row)
        result.updated = Dictionary(uniqueKeysWithValues: updated.map { (row($0.key), $0.value) })
        result.deleted = deleted.map(row)
        return result
    }

    @Test("each row is folded by the subscriber's view: inserted+updated, inserted+deleted, updated+updated, deleted+inserted")
    func folding() {
        var pending = PendingStoreChanges(limit: 100)
        pending.add(Self.result(inserted: [1, 2], updated: [3: ["name"]], deleted: [4]), from: Self.laptop)
        pending.add(Self.result(inserted: [4], updated: [1: ["name"], 3: ["quantity"]], deleted: [2]), from: Self.phone)
        #expect(pending.inserted == [Self.row(1)])
        let expected: [RowRef: Set<String>?] = [Self.row(3): ["name", "quantity"], Self.row(4): Set<String>?.none]
        #expect(pending.updated == expected)
        #expect(pending.updated.count == 2)
        // Row 2, inserted then deleted: owed as deleted, since the subscriber may have fetched it in between.
        #expect(pending.deleted == [Self.row(2)])
        #expect(pending.sources == [Self.laptop, Self.phone])
        #expect(!pending.isEverything)
    }

    @Test("a deletion after an update stands as a deletion, the update let go")
    func deletionsWin() {
        var pending = PendingStoreChanges(limit: 100)
        pending.add(Self.result(updated: [5: ["name"]]), from: Self.laptop)
        pending.add(Self.result(deleted: [5]), from: Self.laptop)
        #expect(pending.deleted == [Self.row(5)])
        #expect(pending.updated.isEmpty)
    }

    @Test("a row inserted and deleted again is owed as deleted, never as nothing and never as inserted")
    func insertedThenDeleted() {
        var pending = PendingStoreChanges(limit: 100)
        pending.add(Self.result(inserted: [7]), from: Self.laptop)
        pending.add(Self.result(updated: [7: ["name"]]), from: Self.laptop)
        pending.add(Self.result(deleted: [7]), from: Self.phone)
        #expect(pending.inserted.isEmpty && pending.updated.isEmpty)
        #expect(pending.deleted == [Self.row(7)])
        #expect(!pending.isEmpty)
    }

    @Test("markEverything owes read-everything-again, keeps the sources, and take empties it")
    func markEverything() {
        var pending = PendingStoreChanges(limit: 100)
        pending.add(Self.result(inserted: [1], deleted: [2]), from: Self.laptop)
        pending.markEverything()
        #expect(pending.isEverything && !pending.isEmpty)
        #expect(pending.inserted.isEmpty && pending.deleted.isEmpty)
        #expect(pending.sources == [Self.laptop])
        pending.add(Self.result(inserted: [3]), from: Self.phone)
        #expect(pending.isEverything && pending.inserted.isEmpty)
        #expect(pending.take().isEverything)
        #expect(pending.isEmpty)
    }

    @Test("an empty import owes nothing; take empties what is owed")
    func takeEmpties() {
        var pending = PendingStoreChanges(limit: 100)
        pending.add(ImportResult(), from: Self.laptop)
        #expect(pending.isEmpty)
        #expect(pending.sources.isEmpty)
        pending.add(Self.result(inserted: [1]), from: Self.laptop)
        let taken = pending.take()
        #expect(taken.inserted == [Self.row(1)])
        #expect(pending.isEmpty && pending.sources.isEmpty)
    }

    @Test("past the limit it collapses into read-everything-again and stays bounded however much arrives")
    func bounded() {
        var pending = PendingStoreChanges(limit: 10)
        for n in 0..<1_000 as Range<UInt64> { pending.add(Self.result(inserted: [n]), from: Self.laptop) }
        #expect(pending.isEverything)
        #expect(!pending.isEmpty)
        #expect(pending.inserted.isEmpty && pending.updated.isEmpty && pending.deleted.isEmpty)
        #expect(pending.sources == [Self.laptop])
        let taken = pending.take()
        #expect(taken.isEverything)
        #expect(!pending.isEverything && pending.isEmpty)
    }

    @Test("exactly the limit is still listed")
    func atTheLimit() {
        var pending = PendingStoreChanges(limit: 3)
        pending.add(Self.result(inserted: [1, 2, 3]), from: Self.laptop)
        #expect(!pending.isEverything)
        #expect(pending.inserted.count == 3)
    }
}
