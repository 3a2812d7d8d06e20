import Testing
import UbiquityJSON
@testable import UbiquityServer

/// Byte progress from Syncthing's `DownloadProgress` and `RemoteDownloadProgress` events:
/// events in, per-path percentages out, forgotten when the item is current, when the device
/// fetching it goes away, and (a new value) when the engine restarts.
@Suite("Transfer progress")
struct TransferProgressTests {
    static func event(_ text: String) throws -> EngineEvent {
        try #require(EngineEvent(json: try JSONLine.parse(Array(text.utf8))))
    }

    @Test func progressEventsAreRead() throws {
        let download = try Self.event(#"""
            {"id":7,"type":"DownloadProgress","time":"2026-11-25T18:00:00Z","data":{"com.example.grocery":{
             "Documents/Item_big":{"total":512,"reused":0,"copiedFromOrigin":0,"copiedFromOriginShifted":0,"copiedFromElsewhere":0,
              "pulled":100,"pulling":4,"bytesTotal":67108864,"bytesDone":13107200}}}}
            """#)
        #expect(download.downloads == ["com.example.grocery": ["Documents/Item_big": BlockProgress(done: 13_107_200, total: 67_108_864)]])
        #expect(download.downloads?["com.example.grocery"]?["Documents/Item_big"]?.percent == 19)
        let remote = try Self.event(#"""
            {"id":8,"type":"RemoteDownloadProgress","data":{"device":"BBBB","folder":"com.example.grocery","state":{"Documents/Item_big":128}}}
            """#)
        #expect(remote.device == "BBBB" && remote.folder == "com.example.grocery" && remote.remoteBlocks == ["Documents/Item_big": 128])
        #expect(try Self.event(#"{"id":9,"type":"DeviceConnected","data":{"id":"X"}}"#).downloads == nil)
    }

    @Test func percentagesNeverTrap() {
        #expect(BlockProgress(done: 5, total: 0).percent == 0)
        #expect(BlockProgress(done: -5, total: 10).percent == 0)
        #expect(BlockProgress(done: 50, total: 10).percent == 100)
        #expect(BlockProgress(done: Int64.max / 2, total: Int64.max).percent == 50)
        #expect(BlockProgress(done: Int64.max, total: Int64.max).percent == 100)
    }

    @Test func downloadsFollowTheLatestEventAndEndWhenCurrent() {
        var progress = TransferProgress()
        let f = "com.example.grocery"
        let changed1 = progress.take([EngineEvent.download(7, [f: ["a": .init(done: 10, total: 100), "b": .init(done: 0, total: 100)]])])
        #expect(changed1)
        #expect(progress.downloadPercents(folder: f) == ["a": 10, "b": 0])
        // The next event holds every download in progress: "b" left out is no longer in flight.
        let changed2 = progress.take([EngineEvent.download(8, [f: ["a": .init(done: 55, total: 100)]])])
        #expect(changed2)
        #expect(progress.downloadPercents(folder: f) == ["a": 55])
        let changed3 = progress.take([EngineEvent.download(9, [f: ["a": .init(done: 55, total: 100)]])])    // no change
        #expect(!changed3)
        // Finished: forgotten at once, before the need lists are read again.
        var finished = EngineEvent(id: 10, type: "ItemFinished", folder: f)
        finished.finishedItem = "a"
        let changed4 = progress.take([finished])
        #expect(changed4)
        #expect(progress.downloadPercents(folder: f).isEmpty)
        // A download the need list no longer shows is over.
        _ = progress.take([EngineEvent.download(11, [f: ["c": .init(done: 1, total: 2)]])])
        let changed5 = progress.retain(folder: f, localNeed: ["c"], remoteNeed: [:])
        #expect(!changed5)
        let changed6 = progress.retain(folder: f, localNeed: [], remoteNeed: [:])
        #expect(changed6)
        #expect(progress.downloadPercents(folder: f).isEmpty)
    }

    @Test func uploadsNeedTheBlockCountAndEndWithTheDevice() {
        var progress = TransferProgress()
        let f = "com.example.grocery"
        let changed7 = progress.take([EngineEvent.remote(1, device: "B", folder: f, ["big": 128, "huge": 3])])
        #expect(changed7)
        #expect(progress.uploadPercents(folder: f) == ["big": ["B": 0], "huge": ["B": 0]])     // counts not known yet
        #expect(progress.missingTotals().map(\.path) == ["big", "huge"])
        #expect(progress.missingTotals(limit: 1).map(\.path) == ["big"])
        progress.setTotalBlocks(512, folder: f, path: "big")
        progress.setTotalBlocks(-1, folder: f, path: "huge")                  // the engine would not say: 0 %
        #expect(progress.missingTotals().isEmpty)
        #expect(progress.uploadPercents(folder: f) == ["big": ["B": 25], "huge": ["B": 0]])
        _ = progress.take([EngineEvent.remote(2, device: "C", folder: f, ["big": 256])])
        #expect(progress.uploadPercents(folder: f) == ["big": ["B": 25, "C": 50], "huge": ["B": 0]])
        // B has "big" now (its remote need list no longer names it); C still fetches it.
        let changed8 = progress.retain(folder: f, localNeed: [], remoteNeed: ["B": ["huge"], "C": ["big"]])
        #expect(changed8)
        #expect(progress.uploadPercents(folder: f) == ["big": ["C": 50], "huge": ["B": 0]])
        // C goes away: its fetch is forgotten, and with it the block count no one needs.
        let changed9 = progress.take([EngineEvent(id: 3, type: "DeviceDisconnected", device: "C")])
        #expect(changed9)
        #expect(progress.uploadPercents(folder: f) == ["huge": ["B": 0]])
        #expect(progress.totalBlocks[f]?["big"] == nil)
        // An empty state: B fetches nothing more in this folder.
        let changed10 = progress.take([EngineEvent.remote(4, device: "B", folder: f, [:])])
        #expect(changed10)
        #expect(progress == TransferProgress())
    }
}

extension EngineEvent {
    static func download(_ id: Int64, _ downloads: [String: [String: BlockProgress]]) -> EngineEvent {
        var event = EngineEvent(id: id, type: "DownloadProgress")
        event.downloads = downloads
        return event
    }

    static func remote(_ id: Int64, device: String, folder: String, _ blocks: [String: Int64]) -> EngineEvent {
        var event = EngineEvent(id: id, type: "RemoteDownloadProgress", device: device, folder: folder)
        event.remoteBlocks = blocks
        return event
    }
}
