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

    /// What each device is known to have acknowledged: the larger watermark and time of what its
    /// file says now and said before; a file missing now, or unreadable (empty), keeps what it said.
    @Test func acknowledgementsReadAreJoinedOverWhatTheySaidBefore() {
        let held = [Self.b: Self.ack([Self.a: 5, Self.b: 3], at: 200), Self.c: Self.ack([Self.a: 4], at: 100)]
        let read = [Self.b: Self.ack([Self.a: 6, Self.c: 1], at: 300),       // newer, with a device it had not named
                    Self.c: Self.ack([:], at: 0),                            // there, but could not be read
                    Self.a: Self.ack([Self.a: 9], at: 50)]                   // not held before
        let joined = Acknowledgement.joining(read, over: held)
        #expect(joined == [Self.b: Self.ack([Self.a: 6, Self.b: 3, Self.c: 1], at: 300),
                           Self.c: Self.ack([Self.a: 4], at: 100),
                           Self.a: Self.ack([Self.a: 9], at: 50)])
        // Missing now (the sync engine removed it and has not renamed the newer one in yet).
        #expect(Acknowledgement.joining([:], over: held) == held)
        // An older file (a smaller watermark, an earlier time) takes nothing back.
        #expect(Acknowledgement.joining([Self.b: Self.ack([Self.a: 2], at: 10)], over: held)[Self.b] == held[Self.b])
        #expect(Acknowledgement.joining(read, over: [:]) == read)
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
