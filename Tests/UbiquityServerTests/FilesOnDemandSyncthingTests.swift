import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
@testable import UbiquityServer
import UbiquityTesting

/// Files on demand through a real Syncthing pair (the two-device rig, private network namespace):
/// evicting on B leaves A's copy and A's index alone, B keeps the item as `notDownloaded`, and
/// downloading brings the same bytes back; A's live query never hears of a removal (un-ignoring
/// must not propagate a deletion). Needs root (unshare).
@Suite("Files on demand with real Syncthing", .ownThreads)
struct FilesOnDemandSyncthingTests {
    /// A daemon serving device B's container, following B's Syncthing.
    static func withFollowerOnB<T>(_ devices: TwoDevices, sync more: String = "",
                                   _ body: (InProcessDaemon, SyncEngineMonitor) async throws -> T) async throws -> T {
        try await SyncEngineConnectionTests.withFollower(container: devices.b.container,
                                                         sync: "config_xml = \"\(devices.syncthingHome(of: devices.b))/config.xml\"\n" + more, body)
    }

    static let status = SyncEngineConnectionTests.downloadingStatus
    static let uploaded = SyncEngineConnectionTests.isUploaded

    @Test("Evict on B, download on B: gone from B's disk, kept on A's disk and index, notDownloaded in B's query, then current with the same bytes; A's query never reports a removal")
    func evictAndDownloadNeverDeleteOnTheOtherDevice() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let contents = "two loaves of bread, one bottle of milk"
        let onA = try devices.a.place("Item_evict", contents: contents)
        try devices.waitUntilInSync()
        let onB = devices.b.documents + "/Item_evict"
        #expect(try String(contentsOfFile: onB, encoding: .utf8) == contents)

        // A's own daemon watches the item during the whole test.
        let watchA = try RawClient(socket: devices.a.socket)
        _ = try watchA.request(#"{"id":0,"op":"hello","version":1}"#)
        _ = try watchA.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0,"attributes":["name","size"]}"#)
        let gatheredA = try TwoDevicesTests.next(watchA, "query.gatheringFinished")
        #expect(TwoDevicesTests.names(gatheredA["results"]) == ["Item_evict"])

        try await Self.withFollowerOnB(devices) { daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0,"attributes":["name","size","isUploaded","downloadingStatus","isDownloading"]}"#)
            let liveB = SyncEngineConnectionTests.LiveItems(client, gathered: try TwoDevicesTests.next(client, "query.gatheringFinished"))
            let held = try liveB.wait(within: 60) { $0["Item_evict"]?[Self.uploaded] == .bool(true) && $0["Item_evict"]?[Self.status]?.stringValue == "current" }
            #expect(held, "\(liveB.attributes); \(monitor.status)")

            // Evict on B.
            let requests = try RawClient(socket: daemon.socket)
            _ = try requests.request(#"{"id":0,"op":"hello","version":1}"#)
            let evicted = try requests.request(#"{"id":1,"op":"item.evict","path":"\#(onB)"}"#).response
            #expect(evicted["result"]?["downloadingStatus"]?.stringValue == "notDownloaded", "\(evicted)")
            #expect(!FileManager.default.fileExists(atPath: onB), "the local copy is still on B")
            var placeholder = stat()
            #expect(stat(devices.b.documents + "/.Item_evict.ubiquity-evicted", &placeholder) == 0)
            #expect(placeholder.st_size == contents.utf8.count && placeholder.st_blocks == 0, "the placeholder holds data: \(placeholder)")
            let stignore = try String(contentsOfFile: devices.b.container + "/.stignore", encoding: .utf8)
            #expect(stignore.contains("/Documents/Item_evict") && stignore.contains("(?d).ubiquity-sync-*"), "the user's lines are kept: \(stignore)")
            let notHere = try liveB.wait(within: 30) { $0["Item_evict"]?[Self.status]?.stringValue == "notDownloaded" }
            #expect(notHere, "B's query does not show the item as notDownloaded: \(liveB.attributes)")
            #expect(liveB.attributes["Item_evict"]?["kMDItemFSSize"] == .integer(Int64(contents.utf8.count)), "\(liveB.attributes)")
            // B's own daemon (no engine, watching all along) and a daemon started now (a crawl:
            // as after a restart) keep the item too, notDownloaded with its size.
            let watching = try RawClient(socket: devices.b.socket)
            _ = try watching.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try watching.request(#"{"id":1,"op":"query.start","predicate":"name == 'Item_evict' AND downloadingStatus == 'notDownloaded'","batchingInterval":0,"attributes":["name","size"]}"#)
            let seenByB = try TwoDevicesTests.next(watching, "query.gatheringFinished")["results"]?.arrayValue ?? []
            #expect(seenByB.count == 1 && seenByB.first?["attributes"]?["kMDItemFSSize"] == .integer(Int64(contents.utf8.count)), "\(seenByB)")
            try await withDaemon(containers: [], arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
                try "[[roots]]\npath = \"\(root)\"\n\n[[containers]]\nid = \"com.example.grocery\"\npath = \"\(devices.b.container)\"\n"
                    .write(toFile: (root as NSString).deletingLastPathComponent + "/ubiquityd.toml", atomically: true, encoding: .utf8)
            }) { fresh in
                let crawled = try RawClient(socket: fresh.socket)
                _ = try crawled.request(#"{"id":0,"op":"hello","version":1}"#)
                _ = try crawled.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*' OR name LIKE '.Item_*'","batchingInterval":0,"attributes":["name","size","downloadingStatus"]}"#)
                let found = try TwoDevicesTests.next(crawled, "query.gatheringFinished")["results"]?.arrayValue ?? []
                #expect(found.count == 1, "the placeholder is not one item named as the item: \(found)")
                #expect(found.first?["attributes"]?["kMDItemFSName"]?.stringValue == "Item_evict")
                #expect(found.first?["attributes"]?[Self.status]?.stringValue == "notDownloaded", "\(found)")
                #expect(found.first?["attributes"]?["kMDItemFSSize"] == .integer(Int64(contents.utf8.count)), "\(found)")
            }
            // Both Syncthings settle; A still has the file, on disk and in its index.
            try devices.waitUntilInSync()
            #expect(try String(contentsOfFile: onA, encoding: .utf8) == contents)
            let still = try requests.request(#"{"id":2,"op":"item.evict","path":"\#(onB)"}"#).response
            #expect(still["result"]?["downloadingStatus"]?.stringValue == "notDownloaded", "evicting again: \(still)")

            // Download on B.
            let download = try requests.request(#"{"id":3,"op":"item.download","path":"\#(onB)"}"#).response
            #expect(download["result"]?["isDownloading"] == .bool(true), "\(download)")
            let back = try liveB.wait(within: 60) { $0["Item_evict"]?[Self.status]?.stringValue == "current" }
            #expect(back, "never current again: \(liveB.attributes); \(monitor.status)")
            try devices.waitUntilInSync()
            #expect(try String(contentsOfFile: onB, encoding: .utf8) == contents)
            try await daemon.waitForLog("its placeholder is removed")
            #expect(!FileManager.default.fileExists(atPath: devices.b.documents + "/.Item_evict.ubiquity-evicted"))
            #expect(liveB.attributes["Item_evict"] != nil, "B's query lost the item: \(liveB.attributes)")
            #expect(!(try String(contentsOfFile: devices.b.container + "/.stignore", encoding: .utf8)).contains("/Documents/Item_evict"))
        }

        // A's query, over the whole test: never a removal; the item and its bytes are still there.
        var messages: [JSONValue] = []
        while let message = try? watchA.readJSON(within: 2) { messages.append(message) }
        #expect(!messages.contains { !($0["removed"]?.arrayValue ?? []).isEmpty }, "A's query reported a removal: \(messages)")
        #expect(try String(contentsOfFile: onA, encoding: .utf8) == contents)
        let again = try RawClient(socket: devices.a.socket)
        _ = try again.request(#"{"id":0,"op":"hello","version":1}"#)
        _ = try again.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#)
        #expect(TwoDevicesTests.names(try TwoDevicesTests.next(again, "query.gatheringFinished")["results"]) == ["Item_evict"])
    }

    @Test("Evict is refused while B holds the only copy (A paused on B): sync.notHeldElsewhere, the file stays")
    func evictRefusedWhenOnlyHere() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        try await Self.withFollowerOnB(devices) { daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            try devices.b.syncthing.call("POST", "/rest/system/pause?device=\(devices.a.deviceID)")
            let onB = try devices.b.place("Item_only_b", contents: "only here")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name == 'Item_only_b'","batchingInterval":0,"attributes":["name"]}"#)
            _ = try TwoDevicesTests.next(client, "query.gatheringFinished")
            let requests = try RawClient(socket: daemon.socket)
            _ = try requests.request(#"{"id":0,"op":"hello","version":1}"#)
            let refused = try requests.request(#"{"id":1,"op":"item.evict","path":"\#(onB)"}"#).response
            #expect(refused["error"]?["code"]?.stringValue == "sync.notHeldElsewhere", "\(refused)")
            #expect(FileManager.default.fileExists(atPath: onB))
            #expect(!(try String(contentsOfFile: devices.b.container + "/.stignore", encoding: .utf8)).contains("Item_only_b"))
        }
    }

    /// The file at `path` as bytes, read with `open`, the path's bytes as given (Foundation may
    /// rewrite a path's spelling); nil when it cannot be read.
    static func exactContents(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[..<n]
        }
    }

    @Test("Evict is refused for a file Syncthing holds nowhere else though no need list names it: one the user's own .stignore line ignores, and a decomposed 'café' beside the precomposed one (Syncthing skips it); the precomposed one is evicted")
    func evictRefusedForWhatTheEngineDoesNotHold() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let composed = "Item_caf\u{E9}", decomposed = "Item_cafe\u{301}"
        try FS.write(devices.b.container + "/.stignore", "/Documents/Item_ignored\n", append: true)
        let ignored = try devices.b.place("Item_ignored", contents: "ignored by the user")
        let composedOnB = try devices.b.place(composed, contents: "precomposed")
        let decomposedOnB = try devices.b.place(decomposed, contents: "decomposed")
        try devices.waitUntilInSync()
        #expect(Self.exactContents(devices.a.documents + "/" + composed) == "precomposed")
        #expect(Self.exactContents(devices.a.documents + "/" + decomposed) == nil, "Syncthing synced the decomposed spelling")
        #expect(Self.exactContents(devices.a.documents + "/Item_ignored") == nil)

        try await Self.withFollowerOnB(devices) { daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            let client = try RawClient.greeted(socket: daemon.socket)
            try client.send(#"{"id":1,"op":"query.start","predicate":"name == 'Item_ignored'","batchingInterval":0,"attributes":["name","isUploaded"]}"#)
            let live = SyncEngineConnectionTests.LiveItems(client, gathered: try TwoDevicesTests.next(client, "query.gatheringFinished"))
            // The facts are known; no need list names the file, so by them alone A holds it.
            #expect(try live.wait(within: 60) { $0["Item_ignored"]?[Self.uploaded] == .bool(true) }, "\(live.attributes)")

            let requests = try RawClient.greeted(socket: daemon.socket)
            // Syncthing has no record of the ignored file (HTTP 404), and answers the precomposed
            // file's record when asked for the decomposed spelling.
            for (id, (path, why)) in [(ignored, "has no record of it"), (decomposedOnB, "another spelling")].enumerated() {
                let refused = try requests.request(#"{"id":\#(id + 2),"op":"item.evict","path":"\#(path)"}"#).response
                #expect(refused["error"]?["code"]?.stringValue == "sync.notHeldElsewhere", "\(refused)")
                let message = refused["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains(why) && message.contains("the only copy stays here"), "\(refused)")
            }
            #expect(Self.exactContents(ignored) == "ignored by the user")
            #expect(Self.exactContents(decomposedOnB) == "decomposed")
            let stignore = try String(contentsOfFile: devices.b.container + "/.stignore", encoding: .utf8)
            #expect(stignore == TwoDevices.ignoredNames.joined(separator: "\n") + "\n/Documents/Item_ignored\n", "\(stignore)")

            // The precomposed spelling is held by A: evicted; its sibling keeps its bytes. Once
            // the precomposed file is gone, Syncthing's next scan may rename the decomposed one to
            // the precomposed spelling (it normalizes a name no canonically equal sibling holds
            // any more): its bytes stay on B under one spelling or the other, never lost.
            let evicted = try requests.request(#"{"id":4,"op":"item.evict","path":"\#(composedOnB)"}"#).response
            #expect(evicted["result"]?["downloadingStatus"]?.stringValue == "notDownloaded", "\(evicted)")
            let onB = [composedOnB, decomposedOnB].map { Self.exactContents($0) }
            #expect(onB == [nil, "decomposed"] || onB == ["decomposed", nil], "\(onB)")
            #expect(Self.exactContents(devices.a.documents + "/" + composed) == "precomposed")
        }
    }

    @Test("Downloading a 16 MiB evicted file: isDownloading while Syncthing needs it, then current with the same bytes; meanwhile a second download is answered at once, and an eviction the pull holds past the timeout takes its ignore line back")
    func downloadIsSeenDownloading() async throws {
        let devices = try await TwoDevices.start()
        defer { devices.stop() }
        let contents = String(repeating: "0123456789abcdef", count: 1 << 20)
        let onA = try devices.a.place("Item_big", contents: contents)
        try devices.a.place("Item_small", contents: "a second item")
        let keptOnA = try devices.a.place("Item_kept", contents: "a third item")
        try devices.waitUntilInSync(within: 120)
        let onB = devices.b.documents + "/Item_big", smallOnB = devices.b.documents + "/Item_small"
        let keptOnB = devices.b.documents + "/Item_kept"
        try await Self.withFollowerOnB(devices, sync: "folder_request_timeout_s = 3") { daemon, monitor in
            _ = try #require(try await firstWithin(30) { await monitor.first { $0.state == .connected } } ?? nil, "\(monitor.status)")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0,"attributes":["name","isUploaded","downloadingStatus","isDownloading"]}"#)
            let liveB = SyncEngineConnectionTests.LiveItems(client, gathered: try TwoDevicesTests.next(client, "query.gatheringFinished"))
            let names = ["Item_big", "Item_small"]
            #expect(try liveB.wait(within: 60) { items in (names + ["Item_kept"]).allSatisfy { items[$0]?[Self.uploaded] == .bool(true) } },
                    "\(liveB.attributes)")
            let requests = try RawClient(socket: daemon.socket)
            _ = try requests.request(#"{"id":0,"op":"hello","version":1}"#)
            for (id, path) in [onB, smallOnB].enumerated() {
                let evicted = try requests.request(#"{"id":\#(id + 1),"op":"item.evict","path":"\#(path)"}"#).response
                #expect(evicted["result"]?["downloadingStatus"]?.stringValue == "notDownloaded", "\(evicted)")
            }
            #expect(try liveB.wait(within: 30) { items in names.allSatisfy { items[$0]?[Self.status]?.stringValue == "notDownloaded" } }, "\(liveB.attributes)")
            // B receives at 700 KB/s (loopback counts as LAN: limited only when asked): the download
            // lasts about 24 s, long enough for the need list to be read and two requests made while
            // it runs (the eviction waits out its 3 s), with room for a loaded machine.
            try devices.b.syncthing.call("PATCH", "/rest/config/options", json: #"{"maxRecvKbps":700,"limitBandwidthInLan":true}"#)
            _ = try requests.request(#"{"id":3,"op":"item.download","path":"\#(onB)"}"#)
            let downloading = try liveB.wait(within: 60) {
                $0["Item_big"]?["NSMetadataUbiquitousItemIsDownloadingKey"] == .bool(true) || $0["Item_big"]?[Self.status]?.stringValue == "current"
            }
            #expect(downloading && liveB.attributes["Item_big"]?["NSMetadataUbiquitousItemIsDownloadingKey"] == .bool(true),
                    "never seen downloading: \(liveB.attributes)")
            // Syncthing's folder does one job at a time: the second item's ignore line is written at
            // once, but the folder scan it starts waits for the pull. The answer does not.
            let second = try requests.request(#"{"id":4,"op":"item.download","path":"\#(smallOnB)"}"#, within: 30).response
            #expect(second["result"]?["isDownloading"] == .bool(true), "\(second)")
            #expect(!FileManager.default.fileExists(atPath: onB), "the second download was answered only after the first had ended")
            #expect(!(try String(contentsOfFile: devices.b.container + "/.stignore", encoding: .utf8)).contains("/Documents/Item_small"))
            // An eviction must wait for its scan, which the pull holds past the 3 s allowed: refused,
            // and its ignore line taken back, so that the item's edits still reach A.
            let held = try requests.request(#"{"id":5,"op":"item.evict","path":"\#(keptOnB)"}"#, within: 30).response
            #expect(held["error"]?["code"]?.stringValue == "sync.engineUnavailable", "\(held)")
            let why = held["error"]?["message"]?.stringValue ?? ""
            #expect(why.contains("folder_request_timeout_s") && why.contains("its ignore line was taken back"), "\(why)")
            #expect(!FileManager.default.fileExists(atPath: onB), "the pull had ended: the eviction was not held by it")
            #expect(!(try String(contentsOfFile: devices.b.container + "/.stignore", encoding: .utf8)).contains("/Documents/Item_kept"))
            #expect(try String(contentsOfFile: keptOnB, encoding: .utf8) == "a third item")
            #expect(try liveB.wait(within: 120) { items in names.allSatisfy { items[$0]?[Self.status]?.stringValue == "current" } }, "\(liveB.attributes)")
            try devices.waitUntilInSync(within: 120)
            #expect(try String(contentsOfFile: onB, encoding: .utf8) == contents)
            #expect(try String(contentsOfFile: onA, encoding: .utf8) == contents)
            #expect(try String(contentsOfFile: smallOnB, encoding: .utf8) == "a second item")
            try devices.b.place("Item_kept", contents: "a third item, edited on B")
            try devices.waitUntilInSync(within: 120)
            #expect(try String(contentsOfFile: keptOnA, encoding: .utf8) == "a third item, edited on B")
            #expect(try liveB.wait(within: 30) { $0["Item_kept"]?[Self.status]?.stringValue == "current" }, "\(liveB.attributes)")
        }
    }
}
