import Testing
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
        #expect(event.time == 1_795_619_795_496_000_000)        // 15:16:35.496 UTC, to the millisecond
        let connected = try #require(EngineEvent(json: try JSONLine.parse(Array(#"{"id":3,"type":"DeviceConnected","data":{"id":"MFZWI3D-X"}}"#.utf8))))
        #expect(connected.device == "MFZWI3D-X" && connected.time == nil)
        #expect(EngineEvent(json: try JSONLine.parse(Array(#"{"type":"NoID"}"#.utf8))) == nil)
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
