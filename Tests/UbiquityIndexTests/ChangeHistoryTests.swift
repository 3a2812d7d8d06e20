import Testing
@testable import UbiquityIndex

/// The change history kept in chunks: let go of from its start a whole chunk at a time, and a
/// copy (a saved index's snapshot) keeps what it was while the original records and trims.
struct ChangeHistoryTests {
    /// One batch that inserted item `id`.
    static func inserted(_ id: ItemID) -> ChangeSet {
        var changes = ChangeSet()
        changes.changes[id] = ChangeSet.Change(id: id, kind: .inserted, before: nil, oldPath: nil)
        return changes
    }

    /// The items a clock at `sequence` is told about (batch `i` inserted item `i`, sequence `i + 1`).
    static func answered(_ history: ChangeHistory, since sequence: Int) -> Set<ItemID>? {
        guard case .success(let states) = history.states(since: HistoryClock(epoch: 1, sequence: UInt64(sequence))) else { return nil }
        return Set(states.keys)
    }

    @Test func aBatchLargerThanTheRetentionKeepsNothingAndAnswersOnlyLaterClocks() {
        var history = ChangeHistory(epoch: 1, retention: ChangeHistory.Retention(maxChanges: 100, maxAge: .seconds(3600)))
        _ = history.handOut()
        history.record(Self.inserted(ItemID(0)), now: 100)
        var big = ChangeSet()
        for id in (1...101).map(ItemID.init) { big.changes[id] = ChangeSet.Change(id: id, kind: .inserted, before: nil, oldPath: nil) }
        history.record(big, now: 100)
        #expect(history.count == 0, "entries nobody can use were kept")
        #expect(history.horizon == 2 && history.sequence == 2)
        #expect(Self.answered(history, since: 1) == nil, "a clock before the big batch is past the retention")
        history.record(Self.inserted(ItemID(500)), now: 100)
        #expect(Self.answered(history, since: 2) == [ItemID(500)])
        #expect(history.count == 1)
    }

    @Test func aLongHistoryLetsGoOfWholeChunksAndACopyKeepsItsOwn() throws {
        let chunk = ChunkedColumn<ChangeHistory.Entry>.chunkSize
        let keep = chunk + 100, total = chunk * 4 + 10
        var history = ChangeHistory(epoch: 1, retention: ChangeHistory.Retention(maxChanges: keep, maxAge: .seconds(3600)))
        _ = history.handOut()
        var copy: ChangeHistory?
        for i in 0..<total {
            history.record(Self.inserted(ItemID(i)), now: 100)
            if i == total / 2 { copy = history }
        }
        #expect(history.count == keep)
        #expect(history.horizon == UInt64(total - keep))
        #expect(Self.answered(history, since: total - keep) == Set(((total - keep)..<total).map(ItemID.init)))
        #expect(Self.answered(history, since: total - keep - 1) == nil, "past the retention")
        #expect(Self.answered(history, since: total - 3) == [ItemID(total - 3), ItemID(total - 2), ItemID(total - 1)])

        let taken = total / 2 + 1
        let snapshot = try #require(copy)
        #expect(snapshot.count == keep && snapshot.sequence == UInt64(taken))
        #expect(Self.answered(snapshot, since: taken - keep) == Set(((taken - keep)..<taken).map(ItemID.init)))
        #expect(snapshot.keptEntries.map(\.id) == ((taken - keep)..<taken).map(ItemID.init))
    }
}
