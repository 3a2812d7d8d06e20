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

    /// What each device is known to have acknowledged: a file read now gives its watermarks, none
    /// lower than before, and the later time; a file missing now, or unreadable (empty), keeps
    /// what it said while the device is known otherwise; what is held never outgrows the files.
    @Test func acknowledgementsReadAreJoinedOverWhatTheySaidBefore() {
        let held = [Self.b: Self.ack([Self.a: 5, Self.b: 3], at: 200), Self.c: Self.ack([Self.a: 4], at: 100)]
        let read = [Self.b: Self.ack([Self.a: 6, Self.c: 1], at: 300),       // newer, naming other devices
                    Self.c: Acknowledgement(imported: [:], modifiedMilliseconds: 500, readable: false),   // there, not readable
                    Self.a: Self.ack([Self.a: 9], at: 50)]                   // not held before
        let everyone: (DeviceID) -> Bool = { _ in true }
        #expect(Acknowledgement.joining(read, over: held, stillKnown: everyone)
                == [Self.b: Self.ack([Self.a: 6, Self.c: 1], at: 300),     // only what the file names now
                    Self.c: Self.ack([Self.a: 4], at: 500),                 // what it said, the newer time
                    Self.a: Self.ack([Self.a: 9], at: 50)])
        // Missing now (the sync engine removed it and has not renamed the newer one in yet): kept
        // while the device is known otherwise (a log or snapshot folder, a watermark), else let go.
        #expect(Acknowledgement.joining([:], over: held, stillKnown: everyone) == held)
        #expect(Acknowledgement.joining([:], over: held, stillKnown: { $0 == Self.c }) == [Self.c: held[Self.c]!])
        // An older file (a smaller watermark, an earlier time) takes nothing back.
        #expect(Acknowledgement.joining([Self.b: Self.ack([Self.a: 2], at: 10)], over: held, stillKnown: everyone)[Self.b]
                == Self.ack([Self.a: 5], at: 200))
        #expect(Acknowledgement.joining(read, over: [:], stillKnown: everyone) == read)
        // A file that names new devices at every read is held as it is now, not as all of them.
        var many = held
        for round in 0..<100 {
            let names = (0..<10).map { DeviceID("d\(round)-\($0)")! }
            many = Acknowledgement.joining([Self.b: Self.ack(Dictionary(uniqueKeysWithValues: names.map { ($0, UInt64(1)) }), at: 400)],
                                           over: many, stillKnown: everyone)
        }
        #expect(many[Self.b]?.imported.count == 10)
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
