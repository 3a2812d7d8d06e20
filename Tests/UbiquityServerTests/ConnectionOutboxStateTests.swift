import Testing
@testable import UbiquityServer
import UbiquityProtocol
import UbiquityJSON
import UbiquityTesting
import UbiquityStore

/// The per-connection outbox as a value: what is posted while the writer is away is coalesced
/// (the latest lock state per watch, the union of keys per subscription with the latest reason,
/// "any key" past the store's key quota), nothing is dropped, and the writer is woken exactly
/// when it waits and something arrives.
struct ConnectionOutboxStateTests {
    /// The state, and what it told its shell: the waiters to resume, in order, and whether each
    /// wait was accepted.
    final class Driver {
        var state = ConnectionOutboxState<Int>()
        var woken: [Int] = []
        var waits: [Bool] = []
        /// The stores' key quota: the most keys a subscription keeps pending.
        var keyLimit = 1_024

        func lock(_ watch: Int, path: String = "/a", locked: Bool, yours: Bool = false) {
            woken += [state.lockChanged(watch: watch, path: path, locked: locked, yours: yours)].compactMap { $0 }
        }

        func keyValue(_ store: Int, _ reason: String, _ keys: [String]?) {
            woken += [state.keyValueChanged(KeyValueChange(store: store, container: "c", reason: reason, keys: keys), limit: keyLimit)]
                .compactMap { $0 }
        }

        func queriesReady() { woken += [state.queriesReady()].compactMap { $0 } }

        func finish() { woken += [state.finish()].compactMap { $0 } }

        func wait(_ waiter: Int) { waits.append(state.wait(waiter)) }

        /// What the writer takes now: nil when nothing is owed (or the outbox finished).
        func take() -> ConnectionOutboxState<Int>.Delivery? {
            if case .deliver(let delivery) = state.take() { return delivery }
            return nil
        }
    }

    func change(_ store: Int, _ reason: String, _ keys: [String]?) -> KeyValueChange {
        KeyValueChange(store: store, container: "c", reason: reason, keys: keys)
    }

    @Test func aWaitingWriterIsWokenOnceAndTakesEverythingCoalesced() {
        let outbox = Driver()
        #expect(outbox.take() == nil)
        outbox.wait(1)
        outbox.lock(7, locked: true)
        // Woken already: later posts only add to what it will take.
        outbox.lock(7, locked: false)
        outbox.keyValue(3, "serverChange", ["x"])
        #expect(outbox.waits == [true])
        #expect(outbox.woken == [1])
        let taken = outbox.take()
        #expect(taken?.documents == [.documentLockChanged(watch: 7, path: "/a", locked: false, yours: false)])
        #expect(taken?.keyValue == [change(3, "serverChange", ["x"])])
        #expect(taken?.pullQueries == false)
        #expect(outbox.take() == nil)
    }

    @Test func keyValueChangesBecomeTheUnionOfTheirKeysWithTheLatestReason() {
        let outbox = Driver()
        for i in 0..<100_000 { outbox.keyValue(1, "serverChange", ["k\(i % 500)"]) }
        outbox.keyValue(1, "quotaViolationChange", ["late"])
        outbox.keyValue(2, "accountChange", ["a", "b"])
        // Bounded by the keys, not by the 100,002 changes.
        #expect(outbox.state.pendingEntries == 503)
        let taken = outbox.take()
        #expect(taken?.keyValue.count == 2)
        #expect(taken?.keyValue.first?.store == 1)
        #expect(taken?.keyValue.first?.reason == "quotaViolationChange")
        #expect(Set(taken?.keyValue.first?.keys ?? []) == Set((0..<500).map { "k\($0)" } + ["late"]))
        #expect(taken?.keyValue.first?.keys == taken?.keyValue.first?.keys?.sorted())
        #expect(taken?.keyValue.last == change(2, "accountChange", ["a", "b"]))
        #expect(outbox.state.pendingEntries == 0)
    }

    @Test func distinctKeysPastTheQuotaCollapseIntoAnyKeyWhichStaysOneEntry() {
        let outbox = Driver()
        outbox.keyLimit = 8
        // Eight keys set and removed: still named.
        for i in 0..<8 {
            outbox.keyValue(1, "serverChange", ["k\(i)"])
            outbox.keyValue(1, "serverChange", ["k\(i)"])
        }
        #expect(outbox.state.pendingEntries == 8)
        // The ninth passes the quota: any key may have changed, and the keys are let go.
        outbox.keyValue(1, "serverChange", ["k8"])
        #expect(outbox.state.pendingEntries == 1)
        // However many distinct keys follow (a churn of k9, k10, …), it stays one entry.
        for i in 9..<100_000 { outbox.keyValue(1, "serverChange", ["k\(i)"]) }
        outbox.keyValue(2, "serverChange", ["other"])
        outbox.keyValue(1, "quotaViolationChange", ["refused"])
        #expect(outbox.state.pendingEntries == 2)
        let taken = outbox.take()
        // The latest reason stands; the subscription of another store keeps its keys.
        #expect(taken?.keyValue == [change(1, "quotaViolationChange", nil), change(2, "serverChange", ["other"])])
        #expect(taken?.keyValue.first?.isAll == true)
        #expect(taken?.keyValue.first?.json["all"] == .bool(true))
        #expect(taken?.keyValue.first?.json["keys"] == nil)
        // Taking resets it: the next changes are named again.
        outbox.keyValue(1, "serverChange", ["after"])
        #expect(outbox.take()?.keyValue == [change(1, "serverChange", ["after"])])
    }

    @Test func oneChangeNamingMoreKeysThanTheQuotaIsAnyKeyAtOnce() {
        let outbox = Driver()
        outbox.keyLimit = 3
        outbox.keyValue(1, "accountChange", ["a", "b", "c"])
        #expect(outbox.take()?.keyValue == [change(1, "accountChange", ["a", "b", "c"])])
        outbox.keyValue(1, "accountChange", ["a", "b", "c", "d"])
        #expect(outbox.state.pendingEntries == 1)
        #expect(outbox.take()?.keyValue == [change(1, "accountChange", nil)])
        // "Any key" posted as such (as a client folds it) absorbs what is named before and after.
        outbox.keyValue(1, "serverChange", ["x"])
        outbox.keyValue(1, "serverChange", nil)
        outbox.keyValue(1, "serverChange", ["y"])
        #expect(outbox.take()?.keyValue == [change(1, "serverChange", nil)])
    }

    @Test func theAnyKeyFormRoundTripsOnTheWire() throws {
        let all = change(4, "serverChange", nil)
        #expect(JSONLine.encode(all.json) == #"{"all":true,"container":"c","event":"kv.changed","reason":"serverChange","store":4}"#)
        #expect(try KeyValueChange(json: all.json) == all)
        let named = change(4, "serverChange", ["a"])
        #expect(try KeyValueChange(json: named.json) == named)
        // No keys and no "all" (an older writer's empty list) is no key, not any key.
        let empty = try KeyValueChange(json: .object(["event": .string("kv.changed"), "store": .integer(4), "container": .string("c"),
                                                      "reason": .string("serverChange")]))
        #expect(empty.keys == [])
    }

    @Test func lockChangesKeepTheLatestStatePerWatchInTheOrderWatchesFirstChanged() {
        let outbox = Driver()
        for i in 0..<1_000 { outbox.lock(2, path: "/b", locked: i % 2 == 0) }
        outbox.lock(1, locked: true, yours: true)
        outbox.lock(2, path: "/b", locked: true)
        #expect(outbox.state.pendingEntries == 2)
        #expect(outbox.take()?.documents == [.documentLockChanged(watch: 2, path: "/b", locked: true, yours: false),
                                             .documentLockChanged(watch: 1, path: "/a", locked: true, yours: true)])
    }

    @Test func theQueriesAreOwedOnceHoweverOftenTheEngineSaysSo() {
        let outbox = Driver()
        outbox.wait(4)
        outbox.queriesReady()
        outbox.queriesReady()
        #expect(outbox.woken == [4])
        #expect(outbox.take()?.pullQueries == true)
        #expect(outbox.take() == nil)
    }

    @Test func somethingPostedBetweenTakeAndWaitIsNotSlept() {
        let outbox = Driver()
        #expect(outbox.take() == nil)
        outbox.keyValue(1, "serverChange", ["x"])
        outbox.wait(1)
        #expect(outbox.waits == [false], "it must take again")
        #expect(outbox.take()?.keyValue.count == 1)
    }

    @Test func endedWatchesAndSubscriptionsLeaveNothingBehind() {
        let outbox = Driver()
        outbox.lock(1, locked: true)
        outbox.keyValue(5, "serverChange", ["x"])
        outbox.keyValue(6, "serverChange", ["y"])
        outbox.state.forget(watch: 1)
        outbox.state.forget(store: 5)
        let taken = outbox.take()
        #expect(taken?.documents == [])
        #expect(taken?.keyValue == [change(6, "serverChange", ["y"])])
    }

    @Test func finishingWakesTheWriterToEndAndIgnoresLaterPosts() {
        let outbox = Driver()
        outbox.wait(9)
        outbox.finish()
        outbox.lock(1, locked: true)
        outbox.keyValue(1, "serverChange", ["x"])
        outbox.queriesReady()
        outbox.wait(10)
        #expect(outbox.woken == [9])
        #expect(outbox.waits == [true, false])
        #expect(outbox.state.pendingEntries == 0)
        if case .finished = outbox.state.take() {} else { Issue.record("a finished outbox delivers nothing") }
    }

    @Test func aChangeWithoutKeysWakesNobody() {
        let outbox = Driver()
        outbox.wait(1)
        outbox.keyValue(1, "serverChange", [])
        #expect(outbox.woken == [])
        #expect(outbox.take() == nil)
    }

    static func rows(_ ids: ClosedRange<UInt64>) -> ImportResult {
        var result = ImportResult()
        result.inserted = ids.map { RowRef(table: "items", id: RowID(high: 0, low: $0)) }
        return result
    }

    @Test func storeChangesFoldPerSubscriptionAndCollapseToAllPastTheLimitStayingOneEntry() throws {
        var state = ConnectionOutboxState<Int>()
        let laptop = DeviceID("laptop")!, phone = DeviceID("phone")!
        let waited = state.wait(1)
        #expect(waited)
        let woken = state.storeChanged(handle: 7, container: "c", store: "grocery", result: Self.rows(1...3), from: laptop, clock: "s1", limit: 10)
        #expect(woken == 1)
        var deleted = ImportResult()
        deleted.deleted = [RowRef(table: "items", id: RowID(high: 0, low: 2))]
        let again = state.storeChanged(handle: 7, container: "c", store: "grocery", result: deleted, from: phone, clock: "s2", limit: 10)
        let empty = state.storeChanged(handle: 8, container: "c", store: "other", result: ImportResult(), from: phone, clock: "s3", limit: 10)
        #expect(again == nil && empty == nil, "the writer was woken once")
        #expect(state.pendingEntries == 3)
        guard case .deliver(let delivery) = state.take() else { Issue.record("nothing to take"); return }
        #expect(delivery.stores.count == 1, "an empty import owes nothing")
        let event = delivery.stores[0].json
        #expect(event["inserted"]?.arrayValue?.count == 2)
        #expect(event["deleted"]?.arrayValue == [.string("ubiquity-store://c/grocery/items/00000000000000000000000000000002")])
        #expect(event["devices"] == .array([.string("laptop"), .string("phone")]))
        #expect(event["clock"] == .string("s2"))
        // A thousand imports of ten rows each while the writer is away: one entry, "all".
        for n in 0..<1_000 as Range<UInt64> {
            _ = state.storeChanged(handle: 7, container: "c", store: "grocery", result: Self.rows(n * 10 + 1...n * 10 + 10), from: laptop, clock: "s\(n)", limit: 100)
            #expect(state.pendingEntries <= 110)
        }
        #expect(state.pendingEntries == 1)
        guard case .deliver(let collapsed) = state.take() else { Issue.record("nothing to take"); return }
        #expect(collapsed.stores.first?.json["all"] == .bool(true))
        #expect(collapsed.stores.first?.json["clock"] == .string("s999"))
        let line = JSONLine.encode(collapsed.stores[0].json)
        #expect(line.utf8.count < 300, "the all form names no rows")
    }

    @Test func anEndedStoreSubscriptionLeavesNothingBehindAndEverythingIsOneEntry() {
        var state = ConnectionOutboxState<Int>()
        _ = state.storeEverything(handle: 3, container: "c", store: "grocery", clock: "s4", limit: 10)
        #expect(state.pendingEntries == 1)
        state.forget(storeHandle: 3)
        #expect(state.pendingEntries == 0)
        guard case .idle = state.take() else { Issue.record("a forgotten subscription was delivered"); return }
    }
}
