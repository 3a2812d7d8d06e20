import Foundation
import Testing
import UbiquityJSON
@testable import UbiquityServer
import UbiquityTesting

/// Byte progress through the real daemon with a stand-in for Syncthing (``FakeSyncthing``), for
/// what a real pair cannot be made to do on cue: progress that must be forgotten when the engine
/// restarts, when the fetching device disconnects, and when the need lists show the item current.
@Suite("Transfer progress with a stand-in for Syncthing", .ownThreads)
struct TransferProgressStandInTests {
    static let percentUploaded = "NSMetadataUbiquitousItemPercentUploadedKey"
    static let isUploading = "NSMetadataUbiquitousItemIsUploadingKey"
    static let percentDownloaded = "NSMetadataUbiquitousItemPercentDownloadedKey"
    static let isDownloading = "NSMetadataUbiquitousItemIsDownloadingKey"

    @Test("Progress of another device's fetch and of a download here reaches live queries, and is forgotten on restart, on disconnect and once current")
    func progressIsForgotten() async throws {
        let folder = FakeSyncthing.folder, other = FakeSyncthing.other
        try await FakeSyncthing.withFollower(holding: ["Item_1", "Item_2"], prepare: {
            $0.events = [(1, "Starting"), (2, "StartupComplete"), (3, "Ping")]
            $0.remoteNeed = ["Documents/Item_1"]
            $0.numBlocks = ["Documents/Item_1": 10]
        }) { _, engine, daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected && $0.lastEvent == 3 } } ?? nil,
                             "\(monitor.status)")
            let client = try RawClient.greeted(socket: daemon.socket)
            try client.send(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0,"attributes":["name","isUploading","percentUploaded","isDownloading","percentDownloaded","downloadingStatus"]}"#)
            let items = SyncEngineConnectionTests.LiveItems(client, gathered: try TwoDevicesTests.next(client, "query.gatheringFinished"))
            func item1(uploading: Bool, percent: Int) -> ([String: JSONValue]) -> Bool {
                { $0["Item_1"]?[Self.isUploading] == .bool(uploading) && $0["Item_1"]?[Self.percentUploaded]?.intValue == percent }
            }
            // The other device needs Item_1 and is connected: uploading, 0 % until it reports.
            #expect(try items.wait(within: 30, until: item1(uploading: true, percent: 0)), "\(items.attributes)")

            // It holds 5 of the file's 10 blocks (the count asked of /rest/db/file).
            engine.change {
                $0.events.append((4, "RemoteDownloadProgress"))
                $0.eventData[4] = ["device": other, "folder": folder, "state": ["Documents/Item_1": 5]]
            }
            #expect(try items.wait(within: 30, until: item1(uploading: true, percent: 50)), "\(items.attributes)")

            // Restarted (another start time, ids from 1): the progress of the previous run is gone.
            engine.change {
                $0.startTime = "2026-11-25T10:05:00.000000002Z"
                $0.events = [(1, "Starting"), (2, "StartupComplete")]
            }
            #expect(try items.wait(within: 30, until: item1(uploading: true, percent: 0)), "\(items.attributes), \(monitor.status)")
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected && $0.lastEvent == 2 } } ?? nil,
                             "\(monitor.status)")

            // The new run reports 8 blocks; then the device disconnects: forgotten, not uploading.
            engine.change {
                $0.events.append((3, "RemoteDownloadProgress"))
                $0.eventData[3] = ["device": other, "folder": folder, "state": ["Documents/Item_1": 8]]
            }
            #expect(try items.wait(within: 30, until: item1(uploading: true, percent: 80)), "\(items.attributes)")
            engine.change {
                $0.events.append((4, "DeviceDisconnected"))
                $0.eventData[4] = ["id": other, "addr": "127.0.0.1:22000", "error": "reading: EOF"]
            }
            #expect(try items.wait(within: 30, until: item1(uploading: false, percent: 0)), "\(items.attributes)")

            // A download here: Item_2 at 40 %, then the need list (read after the next index
            // event) no longer names it: current, 100.
            engine.change {
                $0.events.append((5, "DownloadProgress"))
                $0.eventData[5] = [folder: ["Documents/Item_2": ["total": 20, "pulled": 8, "bytesTotal": 2_621_440, "bytesDone": 1_048_576]]]
            }
            #expect(try items.wait(within: 30) {
                $0["Item_2"]?[Self.isDownloading] == .bool(true) && $0["Item_2"]?[Self.percentDownloaded]?.intValue == 40
                    && $0["Item_2"]?[SyncEngineConnectionTests.downloadingStatus]?.stringValue == "downloaded"
            }, "\(items.attributes)")
            engine.change { $0.events.append((6, "RemoteIndexUpdated")) }
            #expect(try items.wait(within: 30) {
                $0["Item_2"]?[Self.isDownloading] == .bool(false) && $0["Item_2"]?[Self.percentDownloaded]?.intValue == 100
                    && $0["Item_2"]?[SyncEngineConnectionTests.downloadingStatus]?.stringValue == "current"
            }, "\(items.attributes)")
        }
    }
}
