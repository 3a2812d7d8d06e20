import Testing
import UbiquityStore
@testable import UbiquityStoreFiles

/// The journal's view of sync states: each change of a device's condition once, nothing for
/// an import that finds things as they were.
@Suite("SyncStateTransition: a degraded segment is told once")
struct SyncStateTransitionTests {
    static let laptop = DeviceID("laptop")!
    static let phone = DeviceID("phone")!

    static func state(_ device: DeviceID, _ imported: UInt64, _ condition: DeviceSyncState.Condition) -> DeviceSyncState {
        DeviceSyncState(device: device, imported: imported, condition: condition)
    }

    @Test("a device that becomes degraded is told once; the same segment found again says nothing")
    func degradedOnce() {
        let degraded = DeviceSyncState.Condition.degraded(sequence: 3, code: "store.segmentChecksum", reason: "CRC-32 does not match")
        let first = SyncStateTransition.between([Self.state(Self.laptop, 2, .current)], [Self.state(Self.laptop, 2, degraded)])
        #expect(first == [.degraded(device: Self.laptop, sequence: 3, code: "store.segmentChecksum", reason: "CRC-32 does not match")])
        let again = SyncStateTransition.between([Self.state(Self.laptop, 2, degraded)], [Self.state(Self.laptop, 2, degraded)])
        #expect(again.isEmpty)
    }

    @Test("a device that goes on again is told as resumed; other devices current all along say nothing")
    func resumed() {
        let degraded = DeviceSyncState.Condition.degraded(sequence: 3, code: "store.segmentTruncated", reason: "ends early")
        let before = [Self.state(Self.laptop, 2, degraded), Self.state(Self.phone, 7, .current)]
        let after = [Self.state(Self.laptop, 5, .current), Self.state(Self.phone, 9, .current)]
        #expect(SyncStateTransition.between(before, after) == [.resumed(device: Self.laptop, imported: 5)])
    }

    @Test("a new device: current says nothing, stopped for an upgrade is told")
    func newDevices() {
        let after = [Self.state(Self.laptop, 4, .current), Self.state(Self.phone, 0, .needsUpgrade(sequence: 1, schemaVersion: 3))]
        #expect(SyncStateTransition.between([], after) == [.needsUpgrade(device: Self.phone, sequence: 1, schemaVersion: 3)])
    }

    @Test("a degraded device whose reason changes, or which stops at a later segment, is told again")
    func newReason() {
        let before = [Self.state(Self.laptop, 2, .degraded(sequence: 3, code: "store.segmentTruncated", reason: "ends early"))]
        let after = [Self.state(Self.laptop, 3, .degraded(sequence: 4, code: "store.segmentChecksum", reason: "bad CRC"))]
        #expect(SyncStateTransition.between(before, after) == [.degraded(device: Self.laptop, sequence: 4, code: "store.segmentChecksum", reason: "bad CRC")])
    }
}
