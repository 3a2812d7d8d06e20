import Testing
@testable import UbiquityServer
import UbiquityProtocol

/// The per-connection outbox as a value: what is posted while the writer is away is coalesced
/// (the latest lock state per watch, the union of keys per subscription with the latest reason),
/// nothing is dropped, and the writer is woken exactly when it waits and something arrives.
struct ConnectionOutboxStateTests {
    typealias State = ConnectionOutboxState<Int>

    func change(_ store: Int, _ reason: String, _ keys: [String]) -> KeyValueChange {
        KeyValueChange(store: store, container: "c", reason: reason, keys: keys)
    }

    /// Nothing is owed: the writer would wait.
    func expectIdle(_ state: inout State, sourceLocation: SourceLocation = #_sourceLocation) {
        let taken = state.take()
        #expect(taken.isIdle, sourceLocation: sourceLocation)
    }

    func delivery(_ state: inout State) -> State.Delivery? {
        if case .deliver(let delivery) = state.take() { return delivery }
        return nil
    }

    @Test func aWaitingWriterIsWokenOnceAndTakesEverythingCoalesced() {
        var state = State()
        expectIdle(&state)
        let got2 = state.wait(1)
        #expect(got2)
        let got3 = state.lockChanged(watch: 7, path: "/a", locked: true, yours: false)
        #expect(got3 == 1)
        // Woken already: later posts only add to what it will take.
        let got4 = state.lockChanged(watch: 7, path: "/a", locked: false, yours: false)
        #expect(got4 == nil)
        let got5 = state.keyValueChanged(change(3, "serverChange", ["x"]))
        #expect(got5 == nil)
        let taken = delivery(&state)
        #expect(taken?.documents == [.documentLockChanged(watch: 7, path: "/a", locked: false, yours: false)])
        #expect(taken?.keyValue == [change(3, "serverChange", ["x"])])
        #expect(taken?.pullQueries == false)
        expectIdle(&state)
    }

    @Test func keyValueChangesBecomeTheUnionOfTheirKeysWithTheLatestReason() {
        var state = State()
        for i in 0..<100_000 { _ = state.keyValueChanged(change(1, "serverChange", ["k\(i % 500)"])) }
        _ = state.keyValueChanged(change(1, "quotaViolationChange", ["late"]))
        _ = state.keyValueChanged(change(2, "accountChange", ["a", "b"]))
        // Bounded by the keys, not by the 100,001 changes.
        #expect(state.pendingEntries == 503)
        let taken = delivery(&state)
        #expect(taken?.keyValue.count == 2)
        #expect(taken?.keyValue.first?.store == 1)
        #expect(taken?.keyValue.first?.reason == "quotaViolationChange")
        #expect(Set(taken?.keyValue.first?.keys ?? []) == Set((0..<500).map { "k\($0)" } + ["late"]))
        #expect(taken?.keyValue.first?.keys == taken?.keyValue.first?.keys.sorted())
        #expect(taken?.keyValue.last == change(2, "accountChange", ["a", "b"]))
        #expect(state.pendingEntries == 0)
    }

    @Test func lockChangesKeepTheLatestStatePerWatchInTheOrderWatchesFirstChanged() {
        var state = State()
        for i in 0..<1_000 { _ = state.lockChanged(watch: 2, path: "/b", locked: i % 2 == 0, yours: false) }
        _ = state.lockChanged(watch: 1, path: "/a", locked: true, yours: true)
        _ = state.lockChanged(watch: 2, path: "/b", locked: true, yours: false)
        #expect(state.pendingEntries == 2)
        let got10 = delivery(&state)
        #expect(got10?.documents == [.documentLockChanged(watch: 2, path: "/b", locked: true, yours: false),
                                                .documentLockChanged(watch: 1, path: "/a", locked: true, yours: true)])
    }

    @Test func theQueriesAreOwedOnceHoweverOftenTheEngineSaysSo() {
        var state = State()
        let got11 = state.wait(4)
        #expect(got11)
        let got12 = state.queriesReady()
        #expect(got12 == 4)
        let got13 = state.queriesReady()
        #expect(got13 == nil)
        let got14 = delivery(&state)
        #expect(got14?.pullQueries == true)
        expectIdle(&state)
    }

    @Test func somethingPostedBetweenTakeAndWaitIsNotSlept() {
        var state = State()
        expectIdle(&state)
        _ = state.keyValueChanged(change(1, "serverChange", ["x"]))
        let got17 = state.wait(1)
        #expect(!got17)      // it must take again
        let got18 = delivery(&state)
        #expect(got18?.keyValue.count == 1)
    }

    @Test func endedWatchesAndSubscriptionsLeaveNothingBehind() {
        var state = State()
        _ = state.lockChanged(watch: 1, path: "/a", locked: true, yours: false)
        _ = state.keyValueChanged(change(5, "serverChange", ["x"]))
        _ = state.keyValueChanged(change(6, "serverChange", ["y"]))
        state.forget(watch: 1)
        state.forget(store: 5)
        let taken = delivery(&state)
        #expect(taken?.documents == [])
        #expect(taken?.keyValue == [change(6, "serverChange", ["y"])])
    }

    @Test func finishingWakesTheWriterToEndAndIgnoresLaterPosts() {
        var state = State()
        let got19 = state.wait(9)
        #expect(got19)
        let got20 = state.finish()
        #expect(got20 == 9)
        let got21 = state.lockChanged(watch: 1, path: "/a", locked: true, yours: false)
        #expect(got21 == nil)
        let got22 = state.keyValueChanged(change(1, "serverChange", ["x"]))
        #expect(got22 == nil)
        let got23 = state.queriesReady()
        #expect(got23 == nil)
        #expect(state.pendingEntries == 0)
        if case .finished = state.take() {} else { Issue.record("a finished outbox delivers nothing") }
        let got25 = state.wait(10)
        #expect(!got25)
    }

    @Test func aChangeWithoutKeysWakesNobody() {
        var state = State()
        let got26 = state.wait(1)
        #expect(got26)
        let got27 = state.keyValueChanged(change(1, "serverChange", []))
        #expect(got27 == nil)
        expectIdle(&state)
    }
}

extension ConnectionOutboxState.Take {
    var isIdle: Bool { if case .idle = self { true } else { false } }
}
