import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
@testable import UbiquityServer
import UbiquityTesting

/// Byte progress through a real Syncthing pair (the two-device rig, private network namespace):
/// a 64 MiB version written on A is seen on B downloading with a rising `percentDownloaded`, then
/// `current`; on A it is `isUploading` while it travels and not after. Needs root (unshare).
@Suite("Transfer progress with real Syncthing", .ownThreads)
struct TransferProgressSyncthingTests {
    static let isDownloading = "NSMetadataUbiquitousItemIsDownloadingKey"
    static let percentDownloaded = "NSMetadataUbiquitousItemPercentDownloadedKey"
    static let isUploading = "NSMetadataUbiquitousItemIsUploadingKey"
    static let percentUploaded = "NSMetadataUbiquitousItemPercentUploadedKey"
    static let status = SyncEngineConnectionTests.downloadingStatus
    static let uploaded = SyncEngineConnectionTests.isUploaded

    /// A live query of `name` on `daemon`, with every sync attribute.
    static func watch(_ daemon: InProcessDaemon, _ name: String) throws -> SyncEngineConnectionTests.LiveItems {
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name == '\#(name)'","batchingInterval":0,"attributes":["name","downloadingStatus","isDownloading","percentDownloaded","isUploaded","isUploading","percentUploaded"]}"#)
        return SyncEngineConnectionTests.LiveItems(client, gathered: try TwoDevicesTests.next(client, "query.gatheringFinished"))
    }

    /// `count` bytes no two 128 KiB blocks of which are alike (Syncthing reuses equal blocks).
    static func distinctBytes(_ count: Int) -> Data {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            withUnsafeBytes(of: state.bigEndian) { word in
                for offset in 0..<min(8, count - index) { bytes[index + offset] = word[offset] }
            }
        }
        return Data(bytes)
    }

    @Test("A 64 MiB version written on A: on B isDownloading with a rising percentDownloaded, then current; on A isUploading while it travels, not after")
    func progressOfALargeFile() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        // B holds an older, small version: the item is in B's index while the new one travels
        // (Syncthing receives a file under a hidden temporary name).
        try devices.a.place("Item_huge", contents: "a small first version")
        try devices.waitUntilInSync()
        // Progress every second (5 s by default); B receives at about 5 MB/s (loopback counts
        // as LAN: limited only when asked), so the 64 MiB take about 13 s.
        for device in [devices.a, devices.b] {
            try device.syncthing.call("PATCH", "/rest/config/options", json: #"{"progressUpdateIntervalS":1}"#)
        }
        try devices.b.syncthing.call("PATCH", "/rest/config/options", json: #"{"maxRecvKbps":5000,"limitBandwidthInLan":true}"#)
        let homeA = devices.syncthingHome(of: devices.a)
        try await SyncEngineConnectionTests.withFollower(devices, sync: "config_xml = \"\(homeA)/config.xml\"") { daemonA, monitorA in
            try await FilesOnDemandSyncthingTests.withFollowerOnB(devices) { daemonB, monitorB in
                for monitor in [monitorA, monitorB] {
                    _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
                }
                let liveA = try Self.watch(daemonA, "Item_huge")
                let liveB = try Self.watch(daemonB, "Item_huge")
                #expect(try liveB.wait(within: 30) { $0["Item_huge"]?[Self.status]?.stringValue == "current" }, "\(liveB.attributes)")

                let staged = devices.a.root + "/staging-huge"
                try Self.distinctBytes(64 << 20).write(to: URL(fileURLWithPath: staged))
                guard rename(staged, devices.a.documents + "/Item_huge") == 0 else { throw TestDaemonError("rename: \(String(cString: strerror(errno)))") }

                // B: every percentage seen between 0 and 100, until the new version is current.
                var between: [Int] = []
                var sawDownloading = false
                let current = try liveB.wait(within: 60) { items in
                    let item = items["Item_huge"]
                    if item?[Self.isDownloading] == .bool(true) { sawDownloading = true }
                    if let percent = item?[Self.percentDownloaded]?.intValue, percent > 0, percent < 100, between.last != percent {
                        between.append(percent)
                    }
                    return sawDownloading && item?[Self.status]?.stringValue == "current"
                }
                #expect(current, "B never current after downloading: \(liveB.attributes)")
                #expect(sawDownloading, "B never downloading")
                #expect(Set(between).count >= 2, "percentDownloaded seen between 0 and 100: \(between)")
                #expect(between == between.sorted(), "percentDownloaded went back: \(between)")
                #expect(liveB.attributes["Item_huge"]?[Self.percentDownloaded]?.intValue == 100)

                // A: its updates waited in the socket meanwhile; uploading while B fetched it, then
                // uploaded and no longer uploading.
                var sawUploading = false
                var uploadedPercents: [Int] = []
                let done = try liveA.wait(within: 30) { items in
                    let item = items["Item_huge"]
                    if item?[Self.isUploading] == .bool(true) { sawUploading = true }
                    if let percent = item?[Self.percentUploaded]?.intValue, percent > 0, percent < 100, uploadedPercents.last != percent {
                        uploadedPercents.append(percent)
                    }
                    return sawUploading && item?[Self.uploaded] == .bool(true) && item?[Self.isUploading] == .bool(false)
                }
                #expect(done, "A: uploading seen \(sawUploading), now \(liveA.attributes)")
                #expect(liveA.attributes["Item_huge"]?[Self.percentUploaded]?.intValue == 100)
                // Syncthing sends B's progress to A as it goes (RemoteDownloadProgress, every second here).
                #expect(!uploadedPercents.isEmpty, "percentUploaded on A never between 0 and 100")
                print("percentDownloaded on B: \(between); percentUploaded on A: \(uploadedPercents)")
            }
        }
        let size = try FileManager.default.attributesOfItem(atPath: devices.b.documents + "/Item_huge")[.size] as? Int
        #expect(size == 64 << 20)
    }
}
