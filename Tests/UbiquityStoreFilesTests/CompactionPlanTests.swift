import Testing
import UbiquityStore
@testable import UbiquityStoreFiles

/// The decision alone: what a device may remove, who it waits for, who is silent.
@Suite("Compaction plan")
struct CompactionPlanTests {
    static let a = DeviceID("A")!, b = DeviceID("B")!, c = DeviceID("C")!
    static let day: Int64 = 86_400_000

    static func ack(_ imported: [DeviceID: UInt64], at time: Int64) -> Acknowledgement {
        Acknowledgement(imported: imported, modifiedMilliseconds: time)
    }

    @Test func segmentsGoOnlyWhenTheSnapshotCoversThemAndEveryKnownDeviceAcknowledgedThem() {
        let now = 100 * Self.day
        let plan = CompactionPlan(device: Self.a, segments: Array(1...12), snapshots: [5, 10],
                                  acknowledgements: [Self.b: Self.ack([Self.a: 12], at: now), Self.c: Self.ack([Self.a: 7], at: now)],
                                  known: [Self.a, Self.b, Self.c], now: now, silentAfterMilliseconds: 30 * Self.day)
        #expect(plan.segments == Array(1...7))           // C has 7; the snapshot covers 10
        #expect(plan.snapshots == [5])
        #expect(plan.acknowledgedByAll == 7)
        #expect(plan.waitingFor == [Self.c])
        #expect(plan.silent.isEmpty)
    }

    @Test func aKnownDeviceWithoutAnAcknowledgementHoldsEverythingAndASilentOneIsReported() {
        let now = 100 * Self.day
        let plan = CompactionPlan(device: Self.a, segments: Array(1...12), snapshots: [10],
                                  acknowledgements: [Self.b: Self.ack([Self.a: 12], at: now - 31 * Self.day)],
                                  known: [Self.a, Self.b, Self.c], now: now, silentAfterMilliseconds: 30 * Self.day)
        #expect(plan.segments.isEmpty)
        #expect(plan.waitingFor == [Self.c])
        #expect(plan.silent == [Self.b: now - 31 * Self.day])
        // Alone, a device needs only its snapshot; without one, nothing goes.
        let alone = CompactionPlan(device: Self.a, segments: Array(1...12), snapshots: [10], acknowledgements: [:], known: [Self.a],
                                   now: now, silentAfterMilliseconds: 30 * Self.day)
        #expect(alone.segments == Array(1...10))
        let unsnapped = CompactionPlan(device: Self.a, segments: Array(1...12), snapshots: [], acknowledgements: [Self.b: Self.ack([Self.a: 12], at: now)],
                                       known: [Self.a, Self.b], now: now, silentAfterMilliseconds: 30 * Self.day)
        #expect(unsnapped.segments.isEmpty)
    }

    @Test func aForgottenDeviceIsNeitherWaitedForNorSilentUntilItAcknowledgesAgain() {
        let now = 100 * Self.day, old = now - 40 * Self.day
        let acks = [Self.b: Self.ack([Self.a: 12], at: now), Self.c: Self.ack([Self.a: 2], at: old)]
        func plan(_ acknowledgements: [DeviceID: Acknowledgement], forgotten: [DeviceID: Int64]) -> CompactionPlan {
            CompactionPlan(device: Self.a, segments: Array(1...12), snapshots: [10], acknowledgements: acknowledgements,
                           known: [Self.a, Self.b, Self.c], now: now, silentAfterMilliseconds: 30 * Self.day, forgotten: forgotten)
        }
        let held = plan(acks, forgotten: [:])
        #expect(held.segments == [1, 2] && held.waitingFor == [Self.c] && held.silent == [Self.c: old] && held.forgotten.isEmpty)
        // Forgotten with the acknowledgement it has: only B counts.
        let forgotten = plan(acks, forgotten: [Self.c: old])
        #expect(forgotten.segments == Array(1...10) && forgotten.acknowledgedByAll == 12)
        #expect(forgotten.waitingFor.isEmpty && forgotten.silent.isEmpty && forgotten.forgotten == [Self.c])
        // A device forgotten before it had an acknowledgement (0), or one not known at all, changes nothing else.
        #expect(plan([Self.b: acks[Self.b]!], forgotten: [Self.c: 0]).segments == Array(1...10))
        #expect(plan(acks, forgotten: [DeviceID("D")!: 0]).segments == [1, 2])
        // A newer acknowledgement: C is back, and waited for from what it acknowledges.
        let back = plan([Self.b: acks[Self.b]!, Self.c: Self.ack([Self.a: 6], at: now)], forgotten: [Self.c: old])
        #expect(back.segments == Array(1...6) && back.waitingFor == [Self.c] && back.forgotten.isEmpty)
    }
}
