import Testing
@testable import UbiquityServer

/// The engine's connection events laid over a read of its connections.
@Suite("Device connection events")
struct DeviceConnectionEventsTests {
    @Test func theLastEventOfEachDeviceWinsOverTheRead() {
        let batch: [(type: String, device: String?)] = [
            ("DeviceResumed", "B"), ("DeviceConnected", "B"),            // resumed, then connected
            ("DeviceConnected", "C"), ("DeviceDisconnected", "C"),      // came and went
            ("DevicePaused", "D"), ("ItemFinished", nil), ("RemoteIndexUpdated", "E"),
        ]
        let latest = DeviceConnectionEvents.latest(batch)
        #expect(latest == ["B": true, "C": false, "D": false])
        // The read still lists D and not B: the events are newer.
        #expect(DeviceConnectionEvents.apply(latest, to: ["D", "E"]) == ["B", "E"])
        #expect(DeviceConnectionEvents.apply([:], to: ["E"]) == ["E"])
    }
}
