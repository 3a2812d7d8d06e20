import Testing
import UbiquityStore
@testable import UbiquityStoreFiles

/// The decision alone: when a device may shrink its tombstones to floors.
@Suite("Quiet point")
struct QuietPointTests {
    static let a = DeviceID("A")!, b = DeviceID("B")!, c = DeviceID("C")!

    static func ack(_ imported: [DeviceID: UInt64]) -> Acknowledgement { Acknowledgement(imported: imported, modifiedMilliseconds: 1) }

    @Test func quietWhenEveryKnownDeviceHasWhatThisOneHasAndThisOneHasTheirOwnLogs() {
        let mine: [DeviceID: UInt64] = [Self.a: 4, Self.b: 2, Self.c: 3]
        let acks = [Self.b: Self.ack([Self.a: 4, Self.b: 2, Self.c: 3]), Self.c: Self.ack([Self.a: 5, Self.b: 2, Self.c: 3])]
        #expect(QuietPoint.holds(device: Self.a, imported: mine, acknowledgements: acks, known: [Self.a, Self.b, Self.c]))
        // Alone, always.
        #expect(QuietPoint.holds(device: Self.a, imported: [Self.a: 9], acknowledgements: [:], known: [Self.a]))
    }

    @Test func notQuietWhileAKnownDeviceLacksSomethingOrHasMoreOfItsOwn() {
        let mine: [DeviceID: UInt64] = [Self.a: 4, Self.b: 2, Self.c: 3]
        let good = Self.ack([Self.a: 4, Self.b: 2, Self.c: 3])
        let known: Set<DeviceID> = [Self.a, Self.b, Self.c]
        // C has not imported A's segment 4 (it may not have seen a delete in it).
        #expect(!QuietPoint.holds(device: Self.a, imported: mine, acknowledgements: [Self.b: good, Self.c: Self.ack([Self.a: 3, Self.b: 2, Self.c: 3])], known: known))
        // C has not imported B's segment 2.
        #expect(!QuietPoint.holds(device: Self.a, imported: mine, acknowledgements: [Self.b: good, Self.c: Self.ack([Self.a: 4, Self.c: 3])], known: known))
        // C had written its segment 4 when it acknowledged, and A has not imported it (an edit made before C saw a delete).
        #expect(!QuietPoint.holds(device: Self.a, imported: mine, acknowledgements: [Self.b: good, Self.c: Self.ack([Self.a: 4, Self.b: 2, Self.c: 4])], known: known))
        // A known device without an acknowledgement has acknowledged nothing.
        #expect(!QuietPoint.holds(device: Self.a, imported: mine, acknowledgements: [Self.b: good], known: known))
    }
}
