import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityTesting

/// Clock tokens and `since` over the real daemon, real files and a real socket: a client that
/// went away comes back with its last clock and hears exactly what changed meanwhile.
@Suite(.ownThreads) struct SinceQueryDaemonTests {
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    /// The next event named `name`, skipping others.
    static func next(_ client: RawClient, _ name: String, within seconds: Double = 15) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == name { return message }
        }
    }

    static func names(_ list: JSONValue?) -> [String] {
        (list?.arrayValue ?? []).compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }.sorted()
    }

    /// A one-shot query: its gatheringFinished.
    static func gather(_ socket: String, since: String? = nil, predicate: String = "name LIKE 'Item_*'") throws -> JSONValue {
        let client = try RawClient(socket: socket)
        _ = try client.request(hello)
        let sinceField = since.map { #","since":"\#($0)""# } ?? ""
        let (started, _) = try client.request(
            #"{"id":1,"op":"query.start","predicate":"\#(predicate)","attributes":["name","size"],"live":false\#(sinceField)}"#)
        #expect(started["error"] == nil, "\(started)")
        return try next(client, "query.gatheringFinished")
    }

    /// The `Item_*` files in `directory` with their sizes, as the file system has them.
    static func onDisk(_ directory: String) throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix("Item_") {
            var info = stat()
            #expect(stat(directory + "/" + name, &info) == 0)
            found[name] = Int64(info.st_size)
        }
        return found
    }

    /// `before` (name → size) with a since answer applied, as a client applies it.
    static func applying(_ answer: JSONValue, to before: [String: Int64]) -> [String: Int64] {
        var view = before
        func name(_ item: JSONValue) -> String { item["attributes"]?["kMDItemFSName"]?.stringValue ?? "" }
        func size(_ item: JSONValue) -> Int64 { item["attributes"]?["kMDItemFSSize"]?.intValue.map(Int64.init) ?? -1 }
        for item in answer["removed"]?.arrayValue ?? [] { view[name(item)] = nil }
        for item in answer["changed"]?.arrayValue ?? [] {
            view[item["oldPath"]?.stringValue.map { String($0.split(separator: "/").last ?? "") } ?? name(item)] = nil
        }
        for item in (answer["changed"]?.arrayValue ?? []) + (answer["added"]?.arrayValue ?? []) { view[name(item)] = size(item) }
        return view
    }

    static func sizes(_ results: JSONValue?) -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: (results?.arrayValue ?? []).map {
            ($0["attributes"]?["kMDItemFSName"]?.stringValue ?? "", $0["attributes"]?["kMDItemFSSize"]?.intValue.map(Int64.init) ?? -1)
        })
    }

    @Test func aClientThatWentAwayHearsExactlyWhatChangedMeanwhile() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            for (name, text) in [("Item_1", "a"), ("Item_2", "bb"), ("Item_3", "ccc"), ("other", "x")] {
                _ = try daemon.place(name, contents: text)
            }
            // A live client: its answer and every update carry a clock.
            let live = try RawClient(socket: daemon.socket)
            _ = try live.request(Self.hello)
            _ = try live.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","attributes":["name","size"],"batchingInterval":0}"#)
            let gathered = try Self.next(live, "query.gatheringFinished")
            let first = try #require(gathered["clock"]?.stringValue)
            #expect(first.hasPrefix("c1-"))
            _ = try daemon.place("Item_4", contents: "dddd")
            let update = try Self.next(live, "query.update")
            let second = try #require(update["clock"]?.stringValue)
            #expect(second != first)
            let before = Self.sizes(gathered["results"]).merging(["Item_4": 4]) { $1 }

            // Away: create, rename, modify, delete, and a rename out of the query.
            _ = try daemon.place("Item_5", contents: "eeeee")
            #expect(rename(documents + "/Item_1", documents + "/Item_9") == 0)
            try Data("bigger now".utf8).write(to: URL(fileURLWithPath: documents + "/Item_2"))
            #expect(unlink(documents + "/Item_3") == 0)
            #expect(rename(documents + "/Item_4", documents + "/renamed-away") == 0)

            let answer = try Self.gather(daemon.socket, since: second)
            #expect(answer["since"]?.stringValue == second, "\(answer)")
            #expect(answer["fresh"] == nil && answer["results"] == nil, "\(answer)")
            #expect(Self.names(answer["added"]) == ["Item_5"], "\(answer)")
            #expect(Self.names(answer["changed"]) == ["Item_2", "Item_9"], "\(answer)")
            #expect(Self.names(answer["removed"]) == ["Item_3", "Item_4"], "\(answer)")
            let disk = try Self.onDisk(documents)
            #expect(Self.applying(answer, to: before) == disk)
            #expect(answer["count"]?.intValue == disk.count)
            #expect(answer["clock"]?.stringValue != second)

            // From the first clock, the same plus Item_4's whole life: never there for that client.
            let fromFirst = try Self.gather(daemon.socket, since: first)
            #expect(Self.names(fromFirst["removed"]) == ["Item_3"], "\(fromFirst)")
            #expect(Self.applying(fromFirst, to: Self.sizes(gathered["results"])) == disk)
        }
    }

    @Test func tokensTheDaemonCannotAnswerGetEverythingMarkedFresh() async throws {
        try await withDaemon { daemon in
            _ = try daemon.place("Item_1", contents: "a")
            let clock = try #require(try Self.gather(daemon.socket)["clock"]?.stringValue)
            let parts = clock.split(separator: "-")
            let otherEpoch = "c1-" + String(repeating: "0", count: 15) + (parts[1].hasSuffix("1") ? "2" : "1") + "-" + parts[2]
            let fresh = try Self.gather(daemon.socket, since: otherEpoch)
            #expect(fresh["fresh"]?.boolValue == true, "\(fresh)")
            #expect(fresh["freshCode"]?.stringValue == "clock.otherEpoch")
            #expect(fresh["reason"]?.stringValue?.isEmpty == false)
            #expect(Self.names(fresh["results"]) == ["Item_1"])

            let ahead = try Self.gather(daemon.socket, since: "c1-\(parts[1])-\(UInt64(parts[2])! + 1000)")
            #expect(ahead["freshCode"]?.stringValue == "clock.ahead", "\(ahead)")

            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(Self.hello)
            for bad in [#""yesterday""#, "17", #""c1-xyz-1""#] {
                let (refused, _) = try client.request(#"{"id":2,"op":"query.start","predicate":"name LIKE 'Item_*'","since":\#(bad)}"#)
                #expect(refused["error"]?["code"]?.stringValue == "request.malformed", "\(bad): \(refused)")
                #expect(refused["error"]?["field"]?.stringValue == "since", "\(bad): \(refused)")
            }
        }
    }

    /// A container directory deleted after the clock: its items are `removed` for that client.
    @Test func aTokenFromBeforeAContainerWentAwayHearsItsItemsRemoved() async throws {
        try await withDaemon(containers: ["com.example.grocery", "com.example.other"]) { daemon in
            _ = try daemon.place("Item_1", contents: "a")
            _ = try daemon.place("Item_2", in: "com.example.other", contents: "b")
            let live = try RawClient(socket: daemon.socket)
            _ = try live.request(Self.hello)
            _ = try live.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","attributes":["name","size"],"batchingInterval":0}"#)
            let gathered = try Self.next(live, "query.gatheringFinished")
            let clock = try #require(gathered["clock"]?.stringValue)
            try daemon.removeWatchedTree(daemon.root + "/com.example.other")
            _ = try Self.next(live, "container.unavailable")
            let answer = try Self.gather(daemon.socket, since: clock)
            #expect(answer["fresh"] == nil, "\(answer)")
            #expect(Self.names(answer["removed"]) == ["Item_2"], "\(answer)")
            #expect(Self.names(answer["added"]).isEmpty && Self.names(answer["changed"]).isEmpty, "\(answer)")
            #expect(answer["count"]?.intValue == 1)
        }
    }

    /// `history_max_changes = 10`: a token eight files back cannot be answered (each new file
    /// changes it and its directory, once or twice), a token one file back can.
    @Test func pastTheRetentionTheAnswerIsFresh() async throws {
        var template = Array("/tmp/ubqs-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let container = base + "/com.example.grocery"
        try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
        try """
        history_max_changes = 10

        [[containers]]
        id = "com.example.grocery"
        path = "\(container)"
        """.write(toFile: base + "/ubiquityd.toml", atomically: true, encoding: .utf8)
        try await withDaemon(containers: [], arguments: ["--config", base + "/ubiquityd.toml", "--socket", "{socket}"]) { daemon in
            let live = try RawClient(socket: daemon.socket)
            _ = try live.request(Self.hello)
            _ = try live.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#)
            let old = try #require(try Self.next(live, "query.gatheringFinished")["clock"]?.stringValue)
            for i in 1...8 {
                #expect(FileManager.default.createFile(atPath: container + "/Documents/Item_\(i)", contents: nil))
                _ = try Self.next(live, "query.update")
            }
            let fresh = try Self.gather(daemon.socket, since: old)
            #expect(fresh["freshCode"]?.stringValue == "clock.pastRetention", "\(fresh)")
            #expect(Self.names(fresh["results"]) == (1...8).map { "Item_\($0)" })
            let recent = try #require(fresh["clock"]?.stringValue)
            #expect(FileManager.default.createFile(atPath: container + "/Documents/Item_9", contents: nil))
            _ = try Self.next(live, "query.update")
            let answer = try Self.gather(daemon.socket, since: recent)
            #expect(Self.names(answer["added"]) == ["Item_9"], "\(answer)")
        }
    }

    /// More changes than the kernel's event queue holds while the daemon is stopped: the queue
    /// overflows, the container is rescanned, and what the rescan finds is history like any
    /// other change.
    @Test func aSinceAnswerAcrossAQueueOverflowIsStillExact() async throws {
        try await withTestDaemon { daemon in
            let documents = daemon.documents()
            for (name, text) in [("Item_1", "a"), ("Item_2", "bb"), ("Item_3", "ccc")] { _ = try daemon.place(name, contents: text) }
            let gathered = try Self.gather(daemon.socket)
            let clock = try #require(gathered["clock"]?.stringValue)
            let limit = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384

            let watcher = try RawClient(socket: daemon.socket)
            _ = try watcher.request(Self.hello)
            _ = try watcher.request(#"{"id":1,"op":"query.start","predicate":"name == 'nothing'","batchingInterval":0}"#)
            _ = try Self.next(watcher, "query.gatheringFinished")
            daemon.signal(SIGSTOP)
            let flood = Process()
            flood.executableURL = URL(fileURLWithPath: "/bin/sh")
            flood.arguments = ["-c", "cd \"$1\" && seq -f 'flood-%g' 1 \(limit / 3 + 1000) | xargs touch", "flood", documents]
            try flood.run()
            flood.waitUntilExit()
            #expect(flood.terminationStatus == 0)
            _ = try daemon.place("Item_4", contents: "dddd")
            #expect(rename(documents + "/Item_1", documents + "/Item_8") == 0)
            #expect(unlink(documents + "/Item_2") == 0)
            try Data("changed".utf8).write(to: URL(fileURLWithPath: documents + "/Item_3"))
            daemon.signal(SIGCONT)
            let resync = try Self.next(watcher, "query.resync", within: 60)
            #expect(resync["reason"]?.stringValue?.isEmpty == false)

            let answer = try Self.gather(daemon.socket, since: clock)
            #expect(answer["fresh"] == nil, "\(answer)")
            let disk = try Self.onDisk(documents)
            #expect(Self.applying(answer, to: Self.sizes(gathered["results"])) == disk, "\(answer)")
            #expect(Self.names(answer["removed"]).contains("Item_2"))
            #expect(Self.names(answer["changed"] ).contains("Item_3"))
        }
    }
}
