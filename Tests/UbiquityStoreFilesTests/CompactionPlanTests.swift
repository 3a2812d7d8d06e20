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
}
