import Foundation
import Testing
import UbiquityJSON
@testable import UbiquityServer
import UbiquityTesting

/// Files on demand through the real daemon with a stand-in for Syncthing (``FakeSyncthing``), for
/// what a real instance cannot be made to do on cue: a scan that fails after the ignore lines were
/// written, a read of them never answered. The eviction must then take its line back, or the item
/// would stay here ignored, and edits of it would never reach the other devices.
@Suite("Files on demand with a stand-in for Syncthing", .ownThreads)
struct FilesOnDemandStandInTests {
    /// Waits until the daemon follows the stand-in (its event 3 read) and a live query shows each
    /// of `names` held by the other device: what evicting needs.
    static func waitUntilUploaded(_ names: [String], _ daemon: InProcessDaemon, _ monitor: SyncEngineMonitor) async throws {
        let items = try await FakeSyncthing.liveItems(daemon, monitor, afterEvent: 3)
        #expect(try items.wait(within: 30) { items in names.allSatisfy { items[$0]?[SyncEngineConnectionTests.isUploaded] == .bool(true) } },
                "\(items.attributes)")
    }

    @Test("An eviction whose scan fails takes its ignore line back and says so; once the scan works, it evicts; a download writes the lines and asks no scan")
    func aFailedEvictionTakesItsIgnoreLineBack() async throws {
        let userLines = ["// the user's own", "*.tmp"]
        try await FakeSyncthing.withFollower(holding: ["Item_1"], prepare: {
            $0.events = [(1, "Starting"), (2, "StartupComplete"), (3, "Ping")]
            $0.ignoreLines = userLines
            $0.scanFailure = "scanning: folder marker missing"
        }) { container, engine, daemon, monitor in
            let item = container + "/Documents/Item_1"
            try await Self.waitUntilUploaded(["Item_1"], daemon, monitor)

            // The scan fails after the lines were written: refused, the lines as they were, the file here.
            let requests = try RawClient.greeted(socket: daemon.socket)
            let refused = try requests.request(#"{"id":2,"op":"item.evict","path":"\#(item)"}"#).response
            #expect(refused["error"]?["code"]?.stringValue == "sync.engineUnavailable", "\(refused)")
            let message = refused["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("folder marker missing") && message.contains("its ignore line was taken back"), "\(message)")
            var state = FakeSyncthing.State()
            engine.change { state = $0 }
            #expect(state.ignoreLines == [SyncthingIgnorePatterns.placeholderLine] + userLines, "only the item's own line is taken back")
            #expect(state.posts.filter { $0.hasPrefix("/rest/db/ignores") }.count == 2, "\(state.posts)")
            #expect(try String(contentsOfFile: item, encoding: .utf8) == "Item_1")
            #expect(!FileManager.default.fileExists(atPath: container + "/Documents/.Item_1.ubiquity-evicted"))

            // The scan works: evicted, the item's line on top of the user's.
            engine.change { $0.scanFailure = nil; $0.posts = [] }
            let evicted = try requests.request(#"{"id":3,"op":"item.evict","path":"\#(item)"}"#).response
            #expect(evicted["result"]?["downloadingStatus"]?.stringValue == "notDownloaded", "\(evicted)")
            engine.change { state = $0 }
            #expect(state.ignoreLines == [SyncthingIgnorePatterns.placeholderLine, "/Documents/Item_1"] + userLines)
            #expect(!FileManager.default.fileExists(atPath: item))

            // A download writes the lines without the item's and asks a priority pull, no scan:
            // writing them makes Syncthing scan the folder itself.
            engine.change { $0.posts = [] }
            let download = try requests.request(#"{"id":4,"op":"item.download","path":"\#(item)"}"#).response
            #expect(download["result"]?["isDownloading"] == .bool(true), "\(download)")
            engine.change { state = $0 }
            #expect(state.ignoreLines == [SyncthingIgnorePatterns.placeholderLine] + userLines)
            #expect(state.posts.map { $0.split(separator: "?").first.map(String.init) ?? "" } == ["/rest/db/ignores", "/rest/db/prio"],
                    "\(state.posts)")
        }
    }

    @Test("A file written while its eviction waits on the engine is not emptied: it stays whole, and its ignore line is taken back")
    func aFileChangedDuringItsEvictionStaysWhole() async throws {
        try await FakeSyncthing.withFollower(holding: ["Item_1"], prepare: {
            $0.events = [(1, "Starting"), (2, "StartupComplete"), (3, "Ping")]
        }) { container, engine, daemon, monitor in
            try await Self.waitUntilUploaded(["Item_1"], daemon, monitor)
            let item = container + "/Documents/Item_1"
            // The eviction asks the engine, writes its line, then its scan waits: the file is
            // written meanwhile, after the engine said another device holds it.
            engine.change { $0.scanHeld = true }
            let evicting = try RawClient.greeted(socket: daemon.socket)
            try evicting.send(#"{"id":2,"op":"item.evict","path":"\#(item)"}"#)
            #expect(engine.wait(within: 30) { $0.ignoreLines.contains("/Documents/Item_1") }, "the eviction never wrote its line")
            let edited = Data("written while the eviction waited, known only here".utf8)
            try edited.write(to: URL(fileURLWithPath: item))
            engine.change { $0.scanHeld = false }
            let refused = try evicting.readJSON(within: 30)
            #expect(refused["error"]?["code"]?.stringValue == "sync.notHeldElsewhere", "\(refused)")
            #expect(refused["error"]?["message"]?.stringValue?.contains("changed while it was being evicted") == true, "\(refused)")
            #expect(FileManager.default.contents(atPath: item) == edited, "the edit was emptied")
            var state = FakeSyncthing.State()
            engine.change { state = $0 }
            #expect(!state.ignoreLines.contains("/Documents/Item_1"), "its line stayed: \(state.ignoreLines)")
        }
    }

    @Test("An eviction whose read of the ignore lines is never answered is refused, naming what bounds the wait; nothing is written, or read again")
    func anUnansweredReadNamesItsTimeout() async throws {
        // A folder timeout of 1 s: the read must wait the reads' floor all the same (a starved
        // Syncthing, not a folder job, is what delays it), and its message name both. Two reads
        // held: a second one (a take-back of a line never written) would be cut too, and the
        // message would claim that Syncthing may ignore the item.
        try await FakeSyncthing.withFollower(holding: ["Item_1"], sync: "folder_request_timeout_s = 1", prepare: {
            $0.events = [(1, "Starting"), (2, "StartupComplete"), (3, "Ping")]
            $0.ignoreReadsToHold = 2
        }) { container, engine, daemon, monitor in
            try await Self.waitUntilUploaded(["Item_1"], daemon, monitor)
            let item = container + "/Documents/Item_1"
            let floor = "\(SyncthingFolderRequests.readFloor)"
            let requests = try RawClient.greeted(socket: daemon.socket)
            let refused = try requests.request(#"{"id":2,"op":"item.evict","path":"\#(item)"}"#, within: 30).response
            #expect(refused["error"]?["code"]?.stringValue == "sync.engineUnavailable", "\(refused)")
            let message = refused["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("GET /rest/db/ignores") && message.contains("within \(floor)")
                    && message.contains("[sync] folder_request_timeout_s") && message.contains("\(floor) at least")
                    && message.contains("its ignore line was not written: nothing changed"), "\(message)")
            var state = FakeSyncthing.State()
            engine.change { state = $0 }
            #expect(state.posts.isEmpty && state.ignoreReadsToHold == 1, "\(state.posts), \(state.ignoreReadsToHold) reads still to hold")
            #expect(try String(contentsOfFile: item, encoding: .utf8) == "Item_1")
        }
    }

    @Test("A take-back removes only its own line: a download answered while the eviction's scan waited keeps its line removed")
    func aTakeBackKeepsWhatOthersChanged() async throws {
        let userLines = ["*.tmp"]
        try await FakeSyncthing.withFollower(holding: ["Item_1", "Item_2"], prepare: {
            $0.events = [(1, "Starting"), (2, "StartupComplete"), (3, "Ping")]
            $0.ignoreLines = userLines
        }) { container, engine, daemon, monitor in
            try await Self.waitUntilUploaded(["Item_1", "Item_2"], daemon, monitor)
            let first = container + "/Documents/Item_1", second = container + "/Documents/Item_2"
            let requests = try RawClient.greeted(socket: daemon.socket)
            let evicted = try requests.request(#"{"id":2,"op":"item.evict","path":"\#(second)"}"#).response
            #expect(evicted["result"]?["downloadingStatus"]?.stringValue == "notDownloaded", "\(evicted)")

            // Item_1's eviction writes its line, then its scan waits; meanwhile Item_2 is downloaded.
            engine.change { $0.scanHeld = true; $0.scanFailure = "scanning: interrupted" }
            let evicting = try RawClient.greeted(socket: daemon.socket)
            try evicting.send(#"{"id":3,"op":"item.evict","path":"\#(first)"}"#)
            #expect(engine.wait(within: 30) { $0.ignoreLines.contains("/Documents/Item_1") }, "the eviction never wrote its line")
            let download = try requests.request(#"{"id":4,"op":"item.download","path":"\#(second)"}"#).response
            #expect(download["result"]?["isDownloading"] == .bool(true), "\(download)")
            engine.change { $0.scanHeld = false }
            let refused = try evicting.readJSON(within: 30)
            #expect(refused["error"]?["code"]?.stringValue == "sync.engineUnavailable", "\(refused)")
            var state = FakeSyncthing.State()
            engine.change { state = $0 }
            #expect(state.ignoreLines == [SyncthingIgnorePatterns.placeholderLine] + userLines,
                    "Item_1's line taken back, Item_2's left out as its download wrote: \(state.ignoreLines)")
            #expect(FileManager.default.fileExists(atPath: first))
        }
    }
}
