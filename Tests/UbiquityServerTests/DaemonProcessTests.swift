import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// The real `ubiquityd` process and its service-manager surface: sd_notify, socket activation,
/// log format, --check-config, group access and configuration reload.
@Suite("ubiquityd as a service", .ownThreads)
struct DaemonProcessTests {
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    @Test("sd_notify: crawl status, READY=1 with STATUS=serving, WATCHDOG=1 pings, STOPPING=1 on SIGTERM")
    func notifications() async throws {
        let listener = try NotifyListener()
        let daemon = try TestDaemon(environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"])
        defer { daemon.stop(); daemon.cleanUp() }
        var messages: [String] = []
        while !messages.contains(where: { $0.contains("READY=1") }) { messages.append(try listener.receive()) }
        let ready = try #require(messages.last)
        #expect(ready.contains("STATUS=serving 1 containers"))
        // The watchdog pings (every 200 ms here) while the watcher, engine and event loop answer.
        var pings = 0
        while pings < 2 {
            if try listener.receive().contains("WATCHDOG=1") { pings += 1 }
        }
        daemon.signal(SIGTERM)
        var stopping = false
        while !stopping { stopping = try listener.receive().contains("STOPPING=1") }
        #expect(daemon.waitForExit() == 0)
    }

    @Test("Socket activation: the daemon serves the socket systemd-socket-activate passes, and leaves it in place")
    func socketActivation() async throws {
        let daemon = try TestDaemon(
            arguments: ["-l", "{socket}", "--fdname=ubiquityd", "{ubiquityd}", "--root", "{root}", "--socket", "{dir}/bound-by-us.sock"],
            launcher: "/usr/bin/systemd-socket-activate")
        defer { daemon.stop(); daemon.cleanUp() }
        let client = try RawClient(socket: daemon.socket)
        let (hello, _) = try client.request(Self.hello, within: 30)
        #expect(hello["result"]?["server"]?.stringValue == "ubiquityd")
        let (status, _) = try client.request(#"{"id":1,"op":"status"}"#)
        #expect(status["result"]?["containers"]?.arrayValue?.count == 1)
        // Status names the socket clients actually reach (getsockname of the passed one), not --socket.
        #expect(status["result"]?["socket"]?.stringValue == daemon.socket)
        #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/bound-by-us.sock"), "it must not bind its own path")
        #expect(daemon.log.contains("socket activation"))
        #expect(daemon.stop() == 0)
        // The socket belongs to the service manager: the daemon must not remove it.
        #expect(FileManager.default.fileExists(atPath: daemon.socket))
    }

    @Test("Logs on stderr: one <N>-prefixed line per entry with key=value metadata")
    func stderrLogFormat() async throws {
        try await withTestDaemon { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(Self.hello)
            _ = try client.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","live":false}"#)
            _ = try client.readJSON()
            // READY=1 (which the harness waits for) goes out just before the "ready" line is
            // written: wait for the line rather than assume it is there.
            try daemon.waitForLog("<6>ready status=")
            let lines = daemon.log.split(separator: "\n").map(String.init)
            #expect(!lines.isEmpty)
            for line in lines { #expect(line.range(of: #"^<[0-7]>"#, options: .regularExpression) != nil, "\(line)") }
            #expect(lines.contains { $0.hasPrefix("<6>listening socket=\(daemon.socket)") })
            #expect(lines.contains { $0.hasPrefix("<6>ready status=\"serving 1 containers")
                && $0.range(of: #" uptime_ms=[0-9]+$"#, options: .regularExpression) != nil })
            #expect(lines.contains { $0.hasPrefix("<6>query started ") && $0.contains("peer_uid=\(geteuid())") && $0.contains("query=") })
        }
    }

    @Test("A refused request leaves one info line with the peer's uid and the error code")
    func refusalsAreLogged() async throws {
        try await withTestDaemon { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(Self.hello)
            let (refused, _) = try client.request(#"{"id":7,"op":"container.url","container":"com.example.absent"}"#)
            #expect(refused["error"]?["code"]?.stringValue == "container.unknown")
            // The line is written before the answer is sent: it is in the log by now.
            let lines = daemon.log.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("<6>request refused ") && $0.contains("code=container.unknown")
                && $0.contains("peer_uid=\(geteuid())") && $0.contains("request=7") }, "\(lines)")
        }
    }

    @Test("--check-config explains a valid file and names the line and column of every error")
    func checkConfig() throws {
        let directory = try TemporaryDirectory()
        let good = directory.path + "/good.toml", bad = directory.path + "/bad.toml"
        try writeFile(good, """
            socket = "\(directory.path)/s.sock"
            batching_interval_ms = 20
            [[containers]]
            id = "com.example.checked"
            path = "\(directory.path)/checked"
            owner = 0
            """)
        try writeFile(bad, "batching_intervall = 5\nlog_level = \"verbose\"\n")
        let ok = try run(TestDaemon.executable.path, ["--check-config", "--config", good])
        #expect(ok.status == 0)
        #expect(ok.output.contains(good))
        #expect(ok.output.contains("com.example.checked"))
        #expect(ok.output.contains("20 ms"))
        let failed = try run(TestDaemon.executable.path, ["--check-config", "--config", bad])
        #expect(failed.status == 1)
        #expect(failed.output.contains("\(bad):1:1: unknown key 'batching_intervall'; did you mean 'batching_interval_ms'?"))
        #expect(failed.output.contains("\(bad):2:"))
        let conflict = try run(TestDaemon.executable.path, ["--check-config", "--config", good, "--root", directory.path])
        #expect(conflict.status == 1)
        #expect(conflict.output.contains("exclude each other"))
    }

    @Test("Group members may read a container; SIGHUP with an edited file removes and adds containers under live queries")
    func groupAccessAndConfigReload() async throws {
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o755)
        let config = directory.path + "/ubiquityd.toml"
        func declare(_ ids: [String]) throws {
            try writeFile(config, ids.map { id in
                "[[containers]]\nid = \"\(id)\"\npath = \"\(directory.path)/\(id)\"\nowner = 0\n" + (id.hasSuffix("team") ? "group = 54322\n" : "")
            }.joined(separator: "\n"))
        }
        try declare(["com.example.team", "com.example.private", "com.example.old"])
        let daemon = try TestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"])
        defer { daemon.stop(); daemon.cleanUp() }
        chmod(daemon.directory, 0o755)
        #expect(FileManager.default.createFile(atPath: directory.path + "/com.example.team/Documents/Item_team", contents: nil))

        // uid 54321 in group 54322 may read the team container, not the private one.
        let replies = try AuthorizationTests.exchange(as: 54321, groups: [54322], socket: daemon.socket, [
            Self.hello, #"{"id":1,"op":"containers.list"}"#,
            #"{"id":2,"op":"query.start","container":"com.example.private","predicate":"TRUEPREDICATE","live":false}"#,
            #"{"id":3,"op":"query.start","container":"com.example.team","predicate":"name LIKE 'Item_*'","live":false}"#,
        ])
        let listed = (replies.first { $0["id"]?.intValue == 1 }?["result"]?["containers"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(listed == ["com.example.team"])
        #expect(replies.first { $0["id"]?.intValue == 2 }?["error"]?["code"]?.stringValue == "container.forbidden")
        let gathered = replies.first { $0["event"]?.stringValue == "query.gatheringFinished" }
        #expect(gathered?["count"]?.intValue == 1)

        // Live queries on two containers; the file loses one and gains another.
        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(Self.hello)
        let team = try #require(try client.request(#"{"id":1,"op":"query.start","container":"com.example.team","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#).response["result"]?["query"]?.intValue)
        let old = try #require(try client.request(#"{"id":2,"op":"query.start","container":"com.example.old","predicate":"TRUEPREDICATE","batchingInterval":0}"#).response["result"]?["query"]?.intValue)
        try declare(["com.example.team", "com.example.private", "com.example.new"])
        daemon.signal(SIGHUP)
        var unavailable: JSONValue?
        while unavailable == nil {
            let message = try client.readJSON(within: 20)
            if message["event"]?.stringValue == "container.unavailable" && message["query"]?.intValue == old { unavailable = message }
        }
        #expect(unavailable?["container"]?.stringValue == "com.example.old")
        try daemon.waitForLog("reloaded containers=3", within: 20)
        let list = try client.request(#"{"id":3,"op":"containers.list"}"#).response
        let ids = (list["result"]?["containers"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(ids == ["com.example.team", "com.example.private", "com.example.new"])
        #expect(FileManager.default.fileExists(atPath: directory.path + "/com.example.new/Documents"), "create = true by default")
        // The team query was never dropped.
        #expect(FileManager.default.createFile(atPath: directory.path + "/com.example.team/Documents/Item_after", contents: nil))
        var added: [String] = []
        while added.isEmpty {
            let message = try client.readJSON(within: 20)
            if message["event"]?.stringValue == "query.update" && message["query"]?.intValue == team {
                added = (message["added"]?.arrayValue ?? []).compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }
            }
        }
        #expect(added == ["Item_after"])
    }

    @Test("Past max_connections a new connection gets server.busy and is closed; past max_queries_per_connection, query.start does")
    func limitsFromTheConfigurationFile() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/ubiquityd.toml"
        try writeFile(config, """
            [limits]
            max_connections = 2
            max_queries_per_connection = 1
            [[containers]]
            id = "com.example.limits"
            path = "\(directory.path)/limits"
            owner = 0
            """)
        let daemon = try TestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"])
        defer { daemon.stop(); daemon.cleanUp() }
        // The readiness probe's connection may still be counted for a moment: wait until one client fits.
        let first = try RawClient(socket: daemon.socket)
        let (hello, _) = try first.request(Self.hello)
        #expect(hello["result"]?["limits"]?["maxConnections"]?.intValue == 2)
        var second: RawClient?
        var busy: JSONValue?
        let deadline = Date().addingTimeInterval(10)
        // Until both are seen: a refusal can come first while the probe is still counted.
        while (busy == nil || second == nil) && Date() < deadline {
            let candidate = try RawClient(socket: daemon.socket)
            // A refused connection may be closed before this send (EPIPE): its refusal is already
            // queued for reading, and an admitted one answers hello.
            try? candidate.send(Self.hello)
            let reply = try candidate.readJSON()
            if reply["error"]?["code"]?.stringValue == "server.busy" {
                busy = reply
                #expect(candidate.waitForClose())
            } else if second == nil {
                second = candidate
            }
        }
        #expect(busy?["error"]?["limit"]?.intValue == 2)
        #expect(second != nil)

        let (started, _) = try first.request(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE"}"#)
        #expect(started["result"]?["query"] != nil)
        let (refused, _) = try first.request(#"{"id":2,"op":"query.start","predicate":"TRUEPREDICATE"}"#)
        #expect(refused["error"]?["code"]?.stringValue == "server.busy")
        #expect(refused["error"]?["message"]?.stringValue?.contains("query.release") == true)
    }

    func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
