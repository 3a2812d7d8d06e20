import Testing
import UbiquityProtocol

/// `status`'s `degraded` sentences for a store: a device silent too long is named, with the
/// consequence for compaction; a current device that is not silent says nothing.
@Suite("Store status sentences")
struct StoreStatusSentenceTests {
    @Test func aSilentDeviceIsNamedInDegraded() {
        var silent = StoreDeviceState(device: "tablet", imported: 4, state: "current")
        silent.silentSince = 1_767_225_600_000
        let status = StoreStatus(container: "com.example.grocery", store: "grocery", schemaVersion: 1,
                                 devices: [StoreDeviceState(device: "laptop", imported: 9, state: "current"), silent])
        #expect(status.degradedSentences.count == 1)
        #expect(status.degradedSentences.first?.contains("device tablet has acknowledged nothing since 2026-01-01T00:00:00Z") == true)
    }
}
