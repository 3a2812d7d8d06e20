import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// The real daemon over raw JSON lines: what any language sees on the wire.
@Suite("Raw protocol against the real daemon", .ownThreads)
struct RawProtocolTests {
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    func connect(_ socket: String) throws -> RawClient {
        let client = try RawClient(socket: socket)
        let (response, _) = try client.request(Self.hello)
        #expect(response["result"]?["protocol"]?.intValue == 1)
        return client
    }

    func errorCode(_ response: JSONValue) -> String? { response["error"]?["code"]?.stringValue }

    func names(_ items: JSONValue?) -> [String] {
        (items?.arrayValue ?? []).compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }
    }

    /// Reads events of `query` until one named `event` arrives.
    func next(_ event: String, query: Int, from client: RawClient, within seconds: Double = 10) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == event, message["query"]?.intValue == query { return message }
        }
        throw TestDaemonError("no \(event) for query \(query) within \(seconds) s")
    }

    @Test("Live query lifecycle: gathering in order, then added, renamed (oldPath), removed; results, pause, stop, release")
    func lifecycle() async throws {
        try await withDaemon { daemon in
            let documents = daemon.root + "/com.example.grocery/Documents"
            for name in ["Item_B", "Item_A", "Other"] { touch(documents + "/" + name, Data(name.utf8)) }
            let client = try connect(daemon.socket)
            let (started, _) = try client.request(#"{"id":1,"op":"query.start","predicate":"kMDItemFSName LIKE 'Item_*'","scope":"documents","sort":["name"],"attributes":["name","size"],"batchingInterval":0}"#)
            let query = try #require(started["result"]?["query"]?.intValue)
            #expect(started["id"]?.intValue == 1)
            // Exactly this order: started, progress, finished with the sorted result set.
            #expect(try client.readJSON()["event"]?.stringValue == "query.gatheringStarted")
            #expect(try client.readJSON()["event"]?.stringValue == "query.gatheringProgress")
            let finished = try client.readJSON()
            #expect(finished["event"]?.stringValue == "query.gatheringFinished")
            #expect(names(finished["results"]) == ["Item_A", "Item_B"])
            #expect(finished["results"]?.arrayValue?.first?["attributes"]?["kMDItemFSSize"]?.intValue == 6)

            touch(documents + "/Item_C", Data("milk".utf8))
            let added = try next("query.update", query: query, from: client)
            #expect(names(added["added"]) == ["Item_C"])

            try FileManager.default.moveItem(atPath: documents + "/Item_C", toPath: documents + "/Item_D")
            let renamed = try next("query.update", query: query, from: client)
            #expect(names(renamed["changed"]) == ["Item_D"])
            #expect(renamed["changed"]?.arrayValue?.first?["oldPath"]?.stringValue == documents + "/Item_C")

            try FileManager.default.moveItem(atPath: documents + "/Item_D", toPath: documents + "/Other_D")
            let gone = try next("query.update", query: query, from: client)
            #expect(names(gone["removed"]) == ["Item_D"])

            let (results, _) = try client.request(#"{"id":2,"op":"query.results","query":\#(query)}"#)
            #expect(names(results["result"]?["results"]) == ["Item_A", "Item_B"])

            // Paused: two changes, then one update carrying both.
            #expect(try client.request(#"{"id":3,"op":"query.disableUpdates","query":\#(query)}"#).response["result"] != nil)
            touch(documents + "/Item_E", nil)
            try FileManager.default.removeItem(atPath: documents + "/Item_A")
            let (synced, _) = try client.request(#"{"id":4,"op":"query.start","predicate":"TRUEPREDICATE","live":false}"#)
            #expect(synced["result"] != nil)   // a barrier: the daemon has seen both changes now
            let (enabled, pending) = try client.request(#"{"id":5,"op":"query.enableUpdates","query":\#(query)}"#)
            #expect(enabled["result"] != nil)
            var update = pending.first { $0["event"]?.stringValue == "query.update" && $0["query"]?.intValue == query }
            if update == nil { update = try next("query.update", query: query, from: client) }
            #expect(names(update?["added"]) == ["Item_E"])
            #expect(names(update?["removed"]) == ["Item_A"])

            #expect(try client.request(#"{"id":6,"op":"query.stop","query":\#(query)}"#).response["result"]?["stopped"]?.boolValue == true)
            let (afterStop, _) = try client.request(#"{"id":7,"op":"query.results","query":\#(query)}"#)
            #expect(names(afterStop["result"]?["results"]) == ["Item_B", "Item_E"])
            #expect(try client.request(#"{"id":8,"op":"query.release","query":\#(query)}"#).response["result"] != nil)
            #expect(errorCode(try client.request(#"{"id":9,"op":"query.results","query":\#(query)}"#).response) == "query.unknown")
        }
    }

    @Test("stop, disableUpdates, enableUpdates and results of a query another connection holds answer query.unknown")
    func anotherConnectionsQueryIsUnknown() async throws {
        try await withDaemon { daemon in
            let owner = try connect(daemon.socket)
            let (started, _) = try owner.request(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE"}"#)
            let query = try #require(started["result"]?["query"]?.intValue)
            let stranger = try connect(daemon.socket)
            for (id, op) in ["query.stop", "query.disableUpdates", "query.enableUpdates", "query.results", "query.release"].enumerated() {
                let (response, _) = try stranger.request(#"{"id":\#(id + 2),"op":"\#(op)","query":\#(query)}"#)
                #expect(errorCode(response) == "query.unknown", "\(op) on another connection's query")
                #expect(response["error"]?["query"]?.intValue == query)
                #expect(response["result"] == nil, "\(op) on another connection's query")
            }
            // Unknown everywhere: an id no connection holds.
            for op in ["query.stop", "query.disableUpdates", "query.enableUpdates"] {
                #expect(errorCode(try stranger.request(#"{"id":9,"op":"\#(op)","query":999}"#).response) == "query.unknown", "\(op)")
            }
            // The owner's query was not touched: it still stops as its own.
            let (stopped, _) = try owner.request(#"{"id":10,"op":"query.stop","query":\#(query)}"#)
            #expect(stopped["result"]?["stopped"]?.boolValue == true)
        }
    }

    @Test("hello comes first and names a version the server speaks")
    func helloRules() async throws {
        try await withDaemon { daemon in
            let client = try RawClient(socket: daemon.socket)
            let (early, _) = try client.request(#"{"id":"a","op":"status"}"#)
            #expect(errorCode(early) == "request.helloRequired")
            #expect(early["id"]?.stringValue == "a")
            let (wrong, _) = try client.request(#"{"id":1,"op":"hello","version":99}"#)
            #expect(errorCode(wrong) == "protocol.unsupportedVersion")
            let (right, _) = try client.request(Self.hello)
            #expect(right["result"]?["server"]?.stringValue == "ubiquityd")
            #expect(right["result"]?["limits"]?["maxLineBytes"]?.intValue == 1 << 20)
            #expect(right["result"]?["peer"]?["uid"]?.intValue == Int(geteuid()))
        }
    }

    /// Every malformed request gets one clear error with a stable code; the connection stays usable.
    @Test("Bad input battery: each line gets its error code and the connection stays usable")
    func badInput() async throws {
        try await withDaemon { daemon in
            let client = try connect(daemon.socket)
            let cases: [(line: String, code: String, mentions: String)] = [
                (#"{"id":1,"op":"status""#, "request.malformed", "not valid JSON"),
                (#"[1,2]"#, "request.malformed", "JSON object"),
                (#""hello""#, "request.malformed", "JSON object"),
                (#"{"op":"status"}"#, "request.malformed", "'id'"),
                (#"{"id":[1],"op":"status"}"#, "request.malformed", "'id'"),
                (#"{"id":1}"#, "request.malformed", "'op'"),
                (#"{"id":1,"op":7}"#, "request.malformed", "'op' must be a string"),
                (#"{"id":1,"op":"query.strat","predicate":"x"}"#, "request.unknownOperation", "did you mean 'query.start'"),
                (#"{"id":1,"op":"hello","version":"1"}"#, "request.malformed", "'version'"),
                (#"{"id":1,"op":"query.start"}"#, "request.malformed", "'predicate' is missing"),
                (#"{"id":1,"op":"query.start","predicate":5}"#, "request.malformed", "'predicate' must be a string"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","live":"yes"}"#, "request.malformed", "'live' must be a boolean"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","scope":"everywhere"}"#, "request.malformed", "unknown scope"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","scope":7}"#, "request.malformed", "'scope'"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","sort":[1]}"#, "request.malformed", "'sort[0]'"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","attributes":{}}"#, "request.malformed", "'attributes'"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","arguments":"x"}"#, "request.malformed", "'arguments' must be an array"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","variables":[]}"#, "request.malformed", "'variables' must be an object"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","batchingInterval":-1}"#, "request.malformed", "between 0 and 3600"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","batchingInterval":"fast"}"#, "request.malformed", "must be a number"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","container":1}"#, "request.malformed", "'container'"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","container":"x","containers":["y"]}"#, "request.malformed", "not both"),
                (#"{"id":1,"op":"query.start","predicate":"kMDItemFSName LIKE )"}"#, "predicate.syntax", "predicate error at 19"),
                (#"{"id":1,"op":"query.start","predicate":"kMDItemFSNam == 'a'"}"#, "predicate.unknownAttribute", "kMDItemFSName"),
                (#"{"id":1,"op":"query.start","predicate":"size > 'big'"}"#, "predicate.type", "predicate error"),
                (#"{"id":1,"op":"query.start","predicate":"name == %@"}"#, "predicate.argument", "predicate error"),
                (#"{"id":1,"op":"query.start","predicate":"name == $WHO"}"#, "predicate.unboundVariable", "WHO"),
                (#"{"id":1,"op":"query.start","predicate":"name MATCHES '(a)\\1'"}"#, "predicate.regex", "predicate error"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","sort":["colour"]}"#, "query.invalidSort", "colour"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","attributes":["sise"]}"#, "query.unknownAttribute", "did you mean"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","container":"../../etc"}"#, "container.invalid", "invalid container id"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","container":"com.example/x"}"#, "container.invalid", "'/'"),
                (#"{"id":1,"op":"query.start","predicate":"name == 'a'","container":"com.example.grocerie"}"#, "container.unknown", "did you mean 'com.example.grocery'"),
                (#"{"id":1,"op":"container.url","container":"org.nowhere.app"}"#, "container.unknown", "org.nowhere.app"),
                (#"{"id":1,"op":"query.results","query":999}"#, "query.unknown", "999"),
                (#"{"id":1,"op":"query.stop","query":"1"}"#, "request.malformed", "'query' must be a whole number"),
                (#"{"id":1,"op":"query.release"}"#, "request.malformed", "'query' is missing"),
            ]
            for (line, code, mentions) in cases {
                let (response, _) = try client.request(line)
                #expect(errorCode(response) == code, "\(line)")
                let message = response["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains(mentions), "\(line) → \(message)")
            }
            // Invalid UTF-8 inside a string.
            try client.sendBytes(Array(#"{"id":1,"op":"status","x":""#.utf8) + [0xC3, 0x28] + Array("\"}\n".utf8))
            let invalid = try client.readJSON()
            #expect(errorCode(invalid) == "request.malformed")
            #expect(invalid["error"]?["message"]?.stringValue?.contains("UTF-8") == true)
            // Predicate errors carry their offset as a field.
            let (syntax, _) = try client.request(#"{"id":2,"op":"query.start","predicate":"kMDItemFSName LIKE )"}"#)
            #expect(syntax["error"]?["offset"]?.intValue == 19)
            // Still usable after all of that.
            let (status, _) = try client.request(#"{"id":3,"op":"status"}"#)
            #expect(status["result"]?["version"] != nil)
        }
    }

    @Test("A line over the limit gets request.tooLarge and the connection closes; others are served")
    func oversizedLine() async throws {
        try await withDaemon(arguments: ["--root", "{root}", "--socket", "{socket}", "--log-level", "debug"]) { daemon in
            let big = try connect(daemon.socket)
            let other = try connect(daemon.socket)
            var line = Array(#"{"id":1,"op":"query.start","predicate":""#.utf8)
            line += [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
            line += Array("\"}\n".utf8)
            // The daemon may close while we are still sending: that is the point.
            try? big.sendBytes(line)
            let response = try big.readJSON()
            #expect(errorCode(response) == "request.tooLarge")
            #expect(response["error"]?["limit"]?.intValue == 1 << 20)
            #expect(big.waitForClose())
            // The daemon forgets the connection just after closing it, then logs it (debug).
            try await daemon.waitForLog("disconnected", within: 10)
            let connections = try other.request(#"{"id":2,"op":"status"}"#).response["result"]?["connections"]?.intValue
            #expect(connections == 1)
        }
    }

    @Test("Many connections each get the full answer")
    func manyConnections() async throws {
        try await withDaemon { daemon in
            let documents = daemon.root + "/com.example.grocery/Documents"
            for i in 0..<50 { touch(documents + "/Item_\(i)", nil) }
            let clients = try (0..<40).map { _ in try connect(daemon.socket) }
            for (i, client) in clients.enumerated() {
                try client.send(#"{"id":\#(i),"op":"query.start","predicate":"name like 'Item_*'","live":false}"#)
            }
            for client in clients {
                var finished: JSONValue?
                while finished == nil {
                    let message = try client.readJSON()
                    if message["event"]?.stringValue == "query.gatheringFinished" { finished = message }
                }
                #expect(finished?["count"]?.intValue == 50)
                #expect(try client.readJSON()["event"]?.stringValue == "query.stopped")
            }
            let (status, _) = try clients[0].request(#"{"id":99,"op":"status"}"#)
            #expect(status["result"]?["connections"]?.intValue == 40)
        }
    }

    @Test("A client that disconnects mid-gathering, and one that never reads, affect nobody")
    func rudeClients() async throws {
        try await withTestDaemon { daemon in
            let documents = daemon.root + "/com.example.grocery/Documents"
            for i in 0..<3000 { touch(documents + "/Item_\(i)", nil) }
            // Gone before its gathering finishes.
            for _ in 0..<5 {
                let rude = try connect(daemon.socket)
                try rude.send(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","attributes":["name","size","path","contentTypeTree"]}"#)
            }
            // Subscribes to everything live and never reads again.
            let stuck = try connect(daemon.socket)
            try stuck.send(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","batchingInterval":0,"attributes":["name","path","contentTypeTree"]}"#)
            let rssBefore = try residentKiB(daemon.pid)

            let polite = try connect(daemon.socket)
            let (started, _) = try polite.request(#"{"id":1,"op":"query.start","predicate":"name like 'New_*'","batchingInterval":0}"#)
            let query = try #require(started["result"]?["query"]?.intValue)
            _ = try next("query.gatheringFinished", query: query, from: polite)
            var seen = Set<String>()
            for round in 0..<20 {
                for i in 0..<1000 { touch(documents + "/New_\(round)_\(i)", nil) }
                while seen.count < (round + 1) * 1000 {
                    let update = try next("query.update", query: query, from: polite, within: 20)
                    seen.formUnion(names(update["added"]))
                }
            }
            #expect(seen.count == 20_000)
            // The stuck subscriber's pending changes are coalesced per item and past 10,000 become
            // one reset: memory must not grow with every event it did not read.
            let rssAfter = try residentKiB(daemon.pid)
            #expect(rssAfter - rssBefore < 96 * 1024, "RSS grew from \(rssBefore) KiB to \(rssAfter) KiB")
            let (status, _) = try polite.request(#"{"id":2,"op":"status"}"#)
            #expect(status["result"]?["items"]?.intValue == 23_001)
        }
    }

    @Test("SIGTERM during gathering: subscribers are told, the socket is removed, exit 0")
    func sigtermDuringGathering() async throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let documents = daemon.root + "/com.example.grocery/Documents"
        for i in 0..<20_000 { touch(documents + "/f\(i)", nil) }
        let client = try connect(daemon.socket)
        try client.send(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","attributes":["name","path","size","modified","contentTypeTree"]}"#)
        daemon.signal(SIGTERM)
        var sawShutdown = false
        while let line = try client.readLine(within: 20) {
            if line.contains(#""event":"server.shuttingDown""#) { sawShutdown = true }
            // The shutdown line never lands inside an answer written in pieces.
            #expect((try? JSONLine.decode(Array(line.utf8))) != nil, "not one JSON line: \(line.prefix(200))…")
        }
        #expect(sawShutdown)
        #expect(daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
        #expect(daemon.log.contains("stopped"))
    }

    @Test("SIGHUP adds and removes containers while a query is live, without dropping it")
    func sighupReload() async throws {
        try await withTestDaemon(containers: ["com.example.grocery", "com.example.old"]) { daemon in
            let client = try connect(daemon.socket)
            let (started, _) = try client.request(#"{"id":1,"op":"query.start","container":"com.example.grocery","predicate":"name like 'Item_*'","batchingInterval":0}"#)
            let grocery = try #require(started["result"]?["query"]?.intValue)
            let (startedOld, _) = try client.request(#"{"id":2,"op":"query.start","container":"com.example.old","predicate":"TRUEPREDICATE","batchingInterval":0}"#)
            let old = try #require(startedOld["result"]?["query"]?.intValue)

            try FileManager.default.createDirectory(atPath: daemon.root + "/com.example.new/Documents", withIntermediateDirectories: true)
            touch(daemon.root + "/com.example.new/Documents/Item_new", nil)
            try FileManager.default.moveItem(atPath: daemon.root + "/com.example.old", toPath: daemon.directory + "/old-away")
            try daemon.reload(within: 20)

            _ = try next("container.unavailable", query: old, from: client)
            // The new container is queryable once the reload is done.
            let (found, _) = try client.request(#"{"id":11,"op":"query.start","container":"com.example.new","predicate":"name like 'Item_*'","live":false}"#)
            #expect(errorCode(found) == nil)
            let newQuery = try #require(found["result"]?["query"]?.intValue)
            let gathered = try next("query.gatheringFinished", query: newQuery, from: client)
            #expect(names(gathered["results"]) == ["Item_new"])

            // The first live query was never dropped.
            touch(daemon.root + "/com.example.grocery/Documents/Item_after", nil)
            let update = try next("query.update", query: grocery, from: client)
            #expect(names(update["added"]) == ["Item_after"])
            let (list, _) = try client.request(#"{"id":99,"op":"containers.list"}"#)
            let ids = (list["result"]?["containers"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            #expect(ids == ["com.example.grocery", "com.example.new"])
        }
    }

    @Test("container.url resolves the default container and creates Documents/")
    func containerURL() async throws {
        try await withDaemon(containers: ["com.example.grocery"]) { daemon in
            try daemon.removeWatchedTree(daemon.root + "/com.example.grocery/Documents")
            let client = try connect(daemon.socket)
            let (response, _) = try client.request(#"{"id":1,"op":"container.url"}"#)
            #expect(response["result"]?["container"]?.stringValue == "com.example.grocery")
            #expect(response["result"]?["path"]?.stringValue == daemon.root + "/com.example.grocery")
            #expect(response["result"]?["url"]?.stringValue == "file://" + daemon.root + "/com.example.grocery/")
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: daemon.root + "/com.example.grocery/Documents", isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
        }
    }
}

/// `VmRSS` of a process, in KiB.
func residentKiB(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
        throw TestDaemonError("no VmRSS for \(pid)")
    }
    return kib
}

/// Creates a file, recording a test failure when it cannot.
func touch(_ path: String, _ contents: Data?) {
    if !FileManager.default.createFile(atPath: path, contents: contents) { Issue.record("cannot create \(path)") }
}
