import Testing
import UbiquityIndex
import UbiquityJSON
@testable import UbiquityServer

/// Engine events as the daemon reads them, and the index times it keeps from them.
@Suite("Engine events")
struct EngineEventTests {
    @Test func anIndexEventNamesItsFolderFilesAndTime() throws {
        let json = try JSONLine.parse(Array(#"""
            {"id":12,"globalID":12,"time":"2026-11-25T16:16:35.496005389+01:00","type":"LocalIndexUpdated",
             "data":{"folder":"com.example.grocery","items":2,"filenames":["Documents/Item_1","Documents/Item_2"],"sequence":3,"version":3}}
            """#.utf8))
        let event = try #require(EngineEvent(json: json))
        #expect(event.id == 12 && event.type == "LocalIndexUpdated" && event.folder == "com.example.grocery")
        #expect(event.filenames == ["Documents/Item_1", "Documents/Item_2"])
        #expect(event.time == 1_795_619_795_496_005_389)        // 15:16:35.496005389 UTC, to the nanosecond
        let connected = try #require(EngineEvent(json: try JSONLine.parse(Array(#"{"id":3,"type":"DeviceConnected","data":{"id":"MFZWI3D-X"}}"#.utf8))))
        #expect(connected.device == "MFZWI3D-X" && connected.time == nil)
        #expect(EngineEvent(json: try JSONLine.parse(Array(#"{"type":"NoID"}"#.utf8))) == nil)
    }

    @Test func engineTimesAreReadToTheNanosecond() {
        let second: Int64 = 1_795_631_561_000_000_000          // 2026-11-25T18:32:41Z
        #expect(EngineTime.nanoseconds(parsing: "2026-11-25T18:32:41Z") == second)
        #expect(EngineTime.nanoseconds(parsing: "2026-11-25T18:32:41.190691525Z") == second + 190_691_525)
        #expect(EngineTime.nanoseconds(parsing: "2026-11-25T19:32:41.190691525+01:00") == second + 190_691_525)
        #expect(EngineTime.nanoseconds(parsing: "2026-11-25T18:32:41.5Z") == second + 500_000_000)
        #expect(EngineTime.nanoseconds(parsing: "2026-11-25T18:32:41.190691525999Z") == second + 190_691_525)
        for bad in ["", "2026-11-25T18:32:41.Z", "yesterday", "2026-13-01T00:00:00Z", "99999-01-01T00:00:00Z", "2026-11-25T18:32:41.1x2Z"] {
            #expect(EngineTime.nanoseconds(parsing: bad) == nil, "\(bad)")
        }
    }

    /// Seen in `make bench-sync`: Syncthing logged the index event 0.7 ms after the file's mtime, in
    /// the same millisecond; cut to the millisecond, the event fell before the change and the item
    /// stayed "not indexed" (`isUploaded` false for good, until the next full read).
    @Test func anIndexEventInTheSameMillisecondAsTheChangeCountsAsAfterIt() throws {
        let json = try JSONLine.parse(Array(#"""
            {"id":169,"time":"2026-11-25T18:32:41.190691525Z","type":"LocalIndexUpdated",
             "data":{"folder":"com.example.grocery","items":1,"filenames":["Documents/Bench_25"]}}
            """#.utf8))
        var indexed = IndexedPaths()
        indexed.take([try #require(EngineEvent(json: json))], receivedAt: 0)
        let modified: Int64 = 1_795_631_561_190_000_970       // the file's mtime
        let facts = ContainerSyncFacts(known: true, devices: ["B"], connected: ["B"], remoteNeed: ["B": []], readAt: 0,
                                       indexedAt: indexed.paths(of: "com.example.grocery"))
        #expect(facts.values(for: "Documents/Bench_25", modified: modified).isUploaded == true)
    }

    @Test func indexedPathsKeepTheLatestTimeAndForgetAFolderPastTheLimit() {
        var indexed = IndexedPaths()
        indexed.take([EngineEvent(id: 1, type: "LocalIndexUpdated", folder: "f", filenames: ["a", "b"], time: 10),
                      EngineEvent(id: 2, type: "RemoteIndexUpdated", folder: "f", filenames: ["c"], time: 11),
                      EngineEvent(id: 3, type: "LocalIndexUpdated", folder: "f", filenames: ["a"], time: nil)], receivedAt: 20)
        #expect(indexed.paths(of: "f") == ["a": 20, "b": 10])
        #expect(indexed.paths(of: "other").isEmpty)
        let many = (0...IndexedPaths.maxPaths).map { "p\($0)" }
        indexed.take([EngineEvent(id: 4, type: "LocalIndexUpdated", folder: "f", filenames: many, time: 30)], receivedAt: 31)
        #expect(indexed.paths(of: "f").isEmpty)          // forgotten: the safe side
    }
}
