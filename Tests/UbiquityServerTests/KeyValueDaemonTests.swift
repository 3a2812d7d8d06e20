import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityServer
import UbiquityTesting

/// The key-value store through the real daemon on a real socket (docs/kv-store.md). Serialized:
/// each test runs a daemon, and the inotify instances of every daemon a test run has at once share
/// one per-user limit (128 by default).
@Suite("Key-value store against the real daemon", .serialized, .ownThreads)
struct KeyValueDaemonTests {
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    func connect(_ socket: String) throws -> RawClient { try RawClient.greeted(socket: socket) }

    func result(_ client: RawClient, _ line: String) throws -> JSONValue { try client.result(line) }

    func errorOf(_ client: RawClient, _ line: String) throws -> JSONValue? { try client.request(line).response["error"] }

    /// The next `kv.changed` on `client` within a deadline.
    func nextChange(_ client: RawClient, within seconds: Double = 10) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == "kv.changed" { return message }
        }
        throw TestDaemonError("no kv.changed within \(seconds) s")
    }

    /// A daemon serving `root` with quotas `[key_value]` and state in `state`.
    func daemon(root: String, state: String, quota: String = "") throws -> TestDaemon {
        let config = state + "/ubiquityd.toml"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try "[key_value]\n\(quota)\n[[roots]]\npath = \"\(root)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        return try TestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"],
                              environment: ["STATE_DIRECTORY": state])
    }

    func temporaryDirectory() throws -> String {
        var template = Array("/tmp/ubqkv-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
        let path = String(cString: made)
        try FileManager.default.createDirectory(atPath: path + "/root/com.example.grocery/Documents", withIntermediateDirectories: true)
        return path
    }

    /// The names of the threads of process `pid` (`/proc/PID/task/*/comm`).
    func threadNames(_ pid: Int32) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { task in
            try String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("The store's I/O threads start with the first store: a daemon that answered a query and a status has none; the first kv request is served and starts both")
    func ioThreadsStartWithTheFirstStore() async throws {
        try await withTestDaemon { daemon in
            let client = try connect(daemon.socket)
            let answer = try client.request(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","live":false}"#)
            #expect(answer.response["error"] == nil, "\(answer.response)")
            // `status` reports the stores' problems: a container without the folder has none,
            // and its store is not made for it.
            #expect(try result(client, #"{"id":4,"op":"status"}"#)["degraded"]?.arrayValue != nil)
            let io = { try threadNames(daemon.pid).filter { $0.hasPrefix(KeyValueStores.ioThreadName) } }
            let before = try io()
            #expect(before.isEmpty, "started before any key-value request: \(before)")
            #expect(try result(client, #"{"id":2,"op":"kv.set","key":"k","value":1}"#)["stored"] == .bool(true))
            #expect(try result(client, #"{"id":3,"op":"kv.get","key":"k"}"#)["value"] == .integer(1))
            #expect(try io().sorted() == ["\(KeyValueStores.ioThreadName)0", "\(KeyValueStores.ioThreadName)1"])
        }
    }

    @Test("Every value type round-trips; unicode and 64-byte keys work; bad values and keys are refused clearly")
    func valuesAndKeys() async throws {
        try await withDaemon { daemon in
            let client = try connect(daemon.socket)
            let values = [#""text ✓""#, "-42", "9223372036854775807", "2.5", "true", #"{"$data":"AAEC"}"#,
                          #"{"$date":"2026-11-22T10:30:00.250Z"}"#, #"[1,"a",{"$data":""}]"#, #"{"a":{"b":[false]}}"#]
            for (i, value) in values.enumerated() {
                let key = i == 0 ? String(repeating: "é", count: 32) : "k\(i) 🛒"
                let keyJSON = JSONLine.encode(.string(key))
                #expect(try result(client, #"{"id":1,"op":"kv.set","key":\#(keyJSON),"value":\#(value)}"#)["stored"] == .bool(true))
                let read = try result(client, #"{"id":2,"op":"kv.get","key":\#(keyJSON)}"#)["value"]
                #expect(read == (try JSONLine.decode(Array(value.utf8))), "\(value)")
            }
            let all = try result(client, #"{"id":3,"op":"kv.all"}"#)
            #expect(all["usage"]?["keys"]?.intValue == values.count)
            let long = String(repeating: "é", count: 32) + "x"
            #expect(try errorOf(client, #"{"id":4,"op":"kv.set","key":"\#(long)","value":1}"#)?["quota"] == .string("maxKeyBytes"))
            #expect(try errorOf(client, #"{"id":5,"op":"kv.set","key":"k","value":{"$date":3}}"#)?["code"] == .string("kv.invalidValue"))
            #expect(try errorOf(client, #"{"id":6,"op":"kv.set","key":"k"}"#)?["code"] == .string("request.malformed"))
            #expect(try errorOf(client, #"{"id":7,"op":"kv.set","key":5,"value":1}"#)?["code"] == .string("request.malformed"))
            #expect(try errorOf(client, #"{"id":8,"op":"kv.get","key":"k","container":"com.example.nope"}"#)?["code"] == .string("container.unknown"))
            // An oversized value: past the line limit, refused and the connection closed.
            let huge = String(repeating: "x", count: 1 << 20)
            try client.send(#"{"id":9,"op":"kv.set","key":"big","value":"\#(huge)"}"#)
            #expect(try client.readJSON()["error"]?["code"] == .string("request.tooLarge"))
        }
    }

    @Test("Quotas: the last key and byte that fit are stored, one more is refused, subscribers hear quotaViolationChange")
    func quotas() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let d = try daemon(root: directory + "/root", state: directory + "/state", quota: "max_keys = 3\nmax_bytes = 40\nmax_key_bytes = 4")
        defer { _ = d.stop() }
        let writer = try connect(d.socket), watcher = try connect(d.socket)
        _ = try result(watcher, #"{"id":1,"op":"kv.subscribe"}"#)
        _ = try result(writer, #"{"id":1,"op":"kv.subscribe"}"#)
        // Events the writer receives while waiting for its responses.
        var writerEvents: [JSONValue] = []
        func send(_ line: String) throws -> JSONValue {
            let (response, events) = try writer.request(line)
            writerEvents += events
            return response
        }
        for key in ["a", "b"] { #expect(try send(#"{"id":2,"op":"kv.set","key":"\#(key)","value":1}"#)["result"] != nil) }
        #expect(try send(#"{"id":3,"op":"kv.set","key":"abcde","value":1}"#)["error"]?["quota"] == .string("maxKeyBytes"))
        #expect(try send(#"{"id":4,"op":"kv.set","key":"abcd","value":1}"#)["result"] != nil)      // 4 bytes fit; 3 keys
        let tooMany = try send(#"{"id":5,"op":"kv.set","key":"d","value":1}"#)["error"]
        #expect(tooMany?["code"] == .string("kv.quotaExceeded") && tooMany?["quota"] == .string("maxKeys"))
        // "b":1 and "abcd":1 take 2 + 5 bytes; "a" with a string of n letters takes 1 + n + 2: n = 30 fills 40.
        let fits = String(repeating: "y", count: 30)
        #expect(try send(#"{"id":6,"op":"kv.set","key":"a","value":"\#(fits)"}"#)["result"] != nil)
        #expect(try send(#"{"id":7,"op":"kv.all"}"#)["result"]?["usage"]?["bytes"]?.intValue == 40)
        #expect(try send(#"{"id":8,"op":"kv.set","key":"a","value":"\#(fits)y"}"#)["error"]?["quota"] == .string("maxBytes"))
        #expect(try send(#"{"id":9,"op":"kv.remove","key":"b"}"#)["result"]?["removed"] == .bool(true))
        // The watcher saw a, b, abcd, a, b as serverChange, and three quota violations, in order.
        var reasons: [String] = []
        while reasons.count < 8 { reasons.append(try nextChange(watcher)["reason"]?.stringValue ?? "?") }
        let q = "quotaViolationChange", s = "serverChange"
        #expect(reasons == [s, s, q, s, q, s, q, s])
        // The writer is told of quota violations, never of its own writes.
        while writerEvents.count < 3 { writerEvents.append(try nextChange(writer)) }
        #expect(writerEvents.map { $0["reason"]?.stringValue } == [q, q, q])
    }

    @Test("Two processes: a subscriber in another process (socat) is told of the writer's set and remove; told with the right keys")
    func twoProcesses() async throws {
        try await withDaemon { daemon in
            // The subscriber is socat, a separate process, reading the daemon's lines.
            let subscriber = Process()
            subscriber.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
            subscriber.arguments = ["-t", "30", "-", "UNIX-CONNECT:" + daemon.socket]
            let input = Pipe(), output = Pipe()
            subscriber.standardInput = input
            subscriber.standardOutput = output
            try subscriber.run()
            defer { subscriber.terminate() }
            input.fileHandleForWriting.write(Data((Self.hello + "\n" + #"{"id":1,"op":"kv.subscribe"}"# + "\n").utf8))
            let lines = LineReader(output.fileHandleForReading)
            _ = lines.next(within: 10)
            #expect(lines.next(within: 10)?.contains(#""store":"#) == true)
            let writer = try connect(daemon.socket)
            _ = try result(writer, #"{"id":1,"op":"kv.set","key":"sortOrder","value":"name"}"#)
            _ = try result(writer, #"{"id":2,"op":"kv.remove","key":"sortOrder"}"#)
            for _ in 0..<2 {
                let event = try JSONLine.decode(Array((lines.next(within: 10) ?? "").utf8))
                #expect(event["event"] == .string("kv.changed"))
                #expect(event["reason"] == .string("serverChange"))
                #expect(event["keys"] == .array([.string("sortOrder")]))
            }
        }
    }

    @Test("Damaged files (truncated, garbage) are skipped, logged and shown in status; the other files still make the store")
    func damagedFiles() async throws {
        try await withDaemon { daemon in
            let folder = daemon.root + "/com.example.grocery/.ubiquity-kv"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let good = #"{"format":"ubiquity.kv","version":1,"device":"good","entries":{"kept":{"modified":5,"value":"yes"}}}"#
            try good.write(toFile: folder + "/good.json", atomically: true, encoding: .utf8)
            try String(good.prefix(40)).write(toFile: folder + "/truncated.json", atomically: true, encoding: .utf8)
            try Data([0xFF, 0x00, 0x13, 0x37]).write(to: URL(fileURLWithPath: folder + "/garbage.json"))
            // Hostile ones: a link out of the container is never followed, a huge file never read whole,
            // a directory and a deeply nested value are refused.
            try FileManager.default.createSymbolicLink(atPath: folder + "/link.json", withDestinationPath: "/etc/passwd")
            try Data(count: 17 << 20).write(to: URL(fileURLWithPath: folder + "/huge.json"))
            try FileManager.default.createDirectory(atPath: folder + "/dir.json", withIntermediateDirectories: true)
            let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
            try #"{"format":"ubiquity.kv","version":1,"device":"deep","entries":{"d":{"modified":1,"value":\#(deep)}}}"#
                .write(toFile: folder + "/deep.json", atomically: true, encoding: .utf8)
            let client = try connect(daemon.socket)
            // The daemon loaded the (empty) store when it started; read every file now rather than
            // when the watcher's notices come.
            _ = try result(client, #"{"id":0,"op":"kv.synchronize"}"#)
            #expect(try result(client, #"{"id":1,"op":"kv.get","key":"kept"}"#)["value"] == .string("yes"))
            let degraded = try result(client, #"{"id":2,"op":"status"}"#)["degraded"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(degraded.contains { $0.contains("truncated.json") && $0.contains("not valid JSON") })
            #expect(degraded.contains { $0.contains("garbage.json") && $0.contains("UTF-8") })
            #expect(degraded.contains { $0.contains("link.json") && $0.contains("symbolic link") })
            #expect(degraded.contains { $0.contains("huge.json") && $0.contains("more than the 2097152") })
            #expect(degraded.contains { $0.contains("dir.json") && $0.contains("not a regular file") })
            #expect(degraded.contains { $0.contains("deep.json") && $0.contains("nests deeper than 32") })
            let log = daemon.log
            #expect(log.contains("truncated.json") && log.contains("garbage.json"))
            // Writing still works, and the damage stays reported.
            _ = try result(client, #"{"id":3,"op":"kv.set","key":"new","value":1}"#)
            #expect(try result(client, #"{"id":4,"op":"kv.all"}"#)["usage"]?["keys"]?.intValue == 2)
        }
    }

    @Test("A reload that moves the container hands subscribers to the store there, with accountChange and every key")
    func accountChange() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let one = directory + "/one", two = directory + "/two", config = directory + "/ubiquityd.toml"
        try FileManager.default.createDirectory(atPath: two + "/.ubiquity-kv", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: one, withIntermediateDirectories: true)
        try #"{"format":"ubiquity.kv","version":1,"device":"other","entries":{"there":{"modified":1,"value":true}}}"#
            .write(toFile: two + "/.ubiquity-kv/other.json", atomically: true, encoding: .utf8)
        func declare(_ path: String) throws {
            try "[[containers]]\nid = \"com.example.grocery\"\npath = \"\(path)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        }
        try declare(one)
        let d = try TestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"],
                               environment: ["STATE_DIRECTORY": directory + "/state"])
        defer { _ = d.stop(); d.cleanUp() }
        let client = try connect(d.socket)
        _ = try result(client, #"{"id":1,"op":"kv.subscribe"}"#)
        _ = try result(client, #"{"id":2,"op":"kv.set","key":"here","value":1}"#)
        try declare(two)
        d.signal(SIGHUP)
        let change = try nextChange(client)
        #expect(change["reason"] == .string("accountChange"))
        #expect(change["keys"] == .array([.string("here"), .string("there")]))
        let values = try result(client, #"{"id":3,"op":"kv.all"}"#)["values"]
        #expect(values == .object(["there": .bool(true)]))
        // The subscription follows: a write by another connection is reported, and it can end.
        _ = try result(try connect(d.socket), #"{"id":1,"op":"kv.set","key":"later","value":2}"#)
        #expect(try nextChange(client)["keys"] == .array([.string("later")]))
        _ = try result(client, #"{"id":4,"op":"kv.unsubscribe","store":1}"#)
    }

    @Test("The store's files are never items: queries over every scope, and item counts, leave them out")
    func neverItems() async throws {
        try await withDaemon { daemon in
            let client = try connect(daemon.socket)
            _ = try result(client, #"{"id":1,"op":"kv.set","key":"k","value":1}"#)
            _ = try result(client, #"{"id":2,"op":"kv.synchronize"}"#)
            let query = #"{"id":3,"op":"query.start","predicate":"kMDItemFSName LIKE '*'","scope":"all","live":false}"#
            try client.send(query)
            var results: [JSONValue] = []
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                if message["event"]?.stringValue == "query.gatheringFinished" { results = message["results"]?.arrayValue ?? []; break }
            }
            let paths = results.compactMap { $0["path"]?.stringValue }
            #expect(paths.allSatisfy { !$0.contains(".ubiquity-kv") }, "\(paths)")
            #expect(paths.count == 1)   // Documents
            let containers = try result(client, #"{"id":4,"op":"containers.list"}"#)["containers"]?.arrayValue ?? []
            #expect(containers.first?["items"]?.intValue == 1)
        }
    }
}
