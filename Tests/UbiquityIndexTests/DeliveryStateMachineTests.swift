import Testing
@testable import UbiquityIndex
import UbiquityPredicate

/// A clock instant the test moves by hand.
struct ManualInstant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> ManualInstant { ManualInstant(offset: offset + duration) }
    func duration(to other: ManualInstant) -> Duration { other.offset - offset }
    static func < (a: ManualInstant, b: ManualInstant) -> Bool { a.offset < b.offset }
}

@Suite("Delivery state machine")
struct DeliveryStateMachineTests {
    let t0 = ManualInstant(offset: .zero)

    func item(_ n: UInt32, _ path: String, oldPath: String? = nil, size: Int64 = 0) -> ResultItem {
        ResultItem(identity: ItemIdentity(id: n, generation: 0), path: path, oldPath: oldPath,
                   values: [.size: .integer(size)])
    }

    @Test func updatesWaitForTheirBatchingWindow() {
        var machine = DeliveryStateMachine<ManualInstant>(interval: .milliseconds(50), limit: 100, gatheredAt: t0)
        machine.add(QueryDelta(added: [item(1, "/a")]))
        #expect(machine.deadline(now: t0.advanced(by: .milliseconds(10))) == t0.advanced(by: .milliseconds(50)))
        #expect(machine.take(now: t0.advanced(by: .milliseconds(10))) == nil)
        #expect(machine.take(now: t0.advanced(by: .milliseconds(50))) == .update(QueryDelta(added: [item(1, "/a")])))
        #expect(!machine.hasOutput)
        // The next window starts at the last delivery.
        machine.add(QueryDelta(added: [item(2, "/b")]))
        #expect(machine.take(now: t0.advanced(by: .milliseconds(80))) == nil)
        #expect(machine.take(now: t0.advanced(by: .milliseconds(100))) != nil)
    }

    @Test func aZeroIntervalDeliversAtOnce() {
        var machine = DeliveryStateMachine<ManualInstant>(interval: .zero, limit: 100, gatheredAt: t0)
        machine.add(QueryDelta(removed: [item(1, "/a")]))
        #expect(machine.take(now: t0) == .update(QueryDelta(removed: [item(1, "/a")])))
    }

    @Test func eachItemAppearsOnceWithItsNetChange() {
        var machine = DeliveryStateMachine<ManualInstant>(interval: .zero, limit: 100)
        machine.add(QueryDelta(added: [item(1, "/a")], changed: [item(2, "/b2", oldPath: "/b")]))
        machine.add(QueryDelta(changed: [item(1, "/a", size: 5), item(2, "/b3", oldPath: "/b2")], removed: [item(3, "/c")]))
        machine.add(QueryDelta(added: [item(4, "/d")]))
        machine.add(QueryDelta(removed: [item(4, "/d")]))           // came and went
        guard case .update(let delta)? = machine.take(now: t0) else {
            Issue.record("expected an update")
            return
        }
        #expect(delta.added == [item(1, "/a", size: 5)])              // added + changed = added, new values
        #expect(delta.changed == [item(2, "/b3", oldPath: "/b")])     // two renames = one, from the first path
        #expect(delta.removed == [item(3, "/c")])
    }

    @Test func aChangedThenRemovedItemIsRemovedUnderThePathTheSubscriberKnows() {
        var machine = DeliveryStateMachine<ManualInstant>(interval: .zero, limit: 100)
        machine.add(QueryDelta(changed: [item(1, "/new", oldPath: "/old")]))
        machine.add(QueryDelta(removed: [item(1, "/new")]))
        #expect(machine.take(now: t0) == .update(QueryDelta(removed: [item(1, "/old")])))
    }

    @Test func anItemThatStopsAndStartsMatchingWithinAWindowIsOneChange() {
        var machine = DeliveryStateMachine<ManualInstant>(interval: .zero, limit: 100)
        machine.add(QueryDelta(removed: [item(1, "/a", size: 2)]))
        machine.add(QueryDelta(added: [item(1, "/a", size: 9)]))
        machine.add(QueryDelta(removed: [item(2, "/b")]))
        machine.add(QueryDelta(added: [item(2, "/b2")]))            // renamed while it was out
        #expect(machine.take(now: t0) == .update(QueryDelta(changed: [item(1, "/a", size: 9), item(2, "/b2", oldPath: "/b")])))
    }

    @Test func disabledHoldsEverythingUntilEnabled() {
        var machine = DeliveryStateMachine<ManualInstant>(interval: .zero, limit: 100)
        machine.disable()
        machine.add(QueryDelta(added: [item(1, "/a")]))
        #expect(machine.deadline(now: t0) == nil)
        #expect(machine.take(now: t0) == nil)
        machine.enable()
        #expect(machine.take(now: t0) == .update(QueryDelta(added: [item(1, "/a")])))
    }

    @Test func pastTheLimitPendingChangesBecomeOneReset() {
        var machine = DeliveryStateMachine<ManualInstant>(interval: .zero, limit: 10)
        for n in 0..<11 { machine.add(QueryDelta(added: [item(UInt32(n), "/\(n)")])) }
        #expect(machine.pending.isEmpty)                 // memory released at once
        for n in 11..<1_000 { machine.add(QueryDelta(added: [item(UInt32(n), "/\(n)")])) }
        #expect(machine.pending.isEmpty)
        #expect(machine.take(now: t0) == .reset)
        #expect(machine.take(now: t0) == nil)
    }
}
