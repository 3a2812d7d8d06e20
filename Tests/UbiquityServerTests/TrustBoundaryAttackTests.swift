import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// The attacks of the trust boundary's second round, each as it was reproduced: the daemon runs as
/// root (this test process), the attacker is a real other uid (`setpriv`) owning a container of its
/// own, and talks to the real daemon on its socket. Each failed before the controls of
/// docs/threat_model.md; each row there names its test here.
@Suite("Trust boundary: attacks from another uid against a root daemon", .ownThreads)
struct TrustBoundaryAttackTests {
    static let mallory: UInt32 = 54321
    static let container = "com.example.mallory"

    /// A daemon serving the grocery container and Mallory's, which uid 54321 owns.
    static func withMalloryDaemon<T>(_ body: (TestDaemon, String) async throws -> T) async throws -> T {
        try await withTestDaemon(containers: ["com.example.grocery", container], prepare: { root in
            let mine = root + "/" + container
            chown(mine, mallory, mallory)
            chown(mine + "/Documents", mallory, mallory)
        }) { daemon in
            // The other uid must reach the socket and its own container.
            chmod(daemon.directory, 0o755)
            chmod(daemon.root, 0o755)
            return try await body(daemon, daemon.root + "/" + container)
        }
    }

    /// Runs `arguments` as uid 54321 (no groups) and returns its exit status.
    @discardableResult
    static func asMallory(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(mallory)", "--regid=\(mallory)", "--clear-groups"] + arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func request(_ id: Int, _ op: String, _ fields: [String: JSONValue]) -> String {
        JSONLine.encode(.object(fields.merging(["id": .integer(Int64(id)), "op": .string(op)]) { $1 }))
    }

    @Test("Attack 1: a grapheme-prepend character hides a '/' and a link to '/' in one's own container; nothing outside is read, renamed, removed, locked or watched")
    func escapeThroughAPrependCharacter() async throws {
        try await Self.withMalloryDaemon { daemon, mine in
            // What must stay out of reach: a root-only file outside every container.
            let marker = "TOP-SECRET-\(UInt64.random(in: 1...UInt64.max))"
            let vault = daemon.directory + "/vault"
            try FS.mkdir(vault, mode: 0o700)
            try FS.write(vault + "/secret", marker)
            chmod(vault + "/secret", 0o600)
            #expect(try Self.asMallory(["ln", "-s", "/", mine + "/L\u{600}"]) == 0)
            #expect(try Self.asMallory(["ln", "-s", daemon.directory, mine + "/Documents/out"]) == 0)
            let outside = String(vault.dropFirst())
            let targets = [mine + "/L\u{600}/" + outside + "/secret", mine + "/L\u{600}/etc/shadow",
                           mine + "/Documents/out/vault/secret", mine + "/L\u{600}/" + outside]
            var lines = [#"{"id":0,"op":"hello","version":1}"#]
            var id = 1
            for target in targets {
                for (op, fields) in [("versions.list", [:]), ("version.read", ["version": JSONValue.string("current")]),
                                     ("version.resolve", ["keep": .string("current")]), ("document.lock", [:]),
                                     ("document.watch", [:])] as [(String, [String: JSONValue])] {
                    lines.append(Self.request(id, op, fields.merging(["path": .string(target)]) { $1 }))
                    id += 1
                }
            }
            let replies = try AuthorizationTests.exchange(as: Self.mallory, socket: daemon.socket, lines)
            let answers = replies.filter { ($0["id"]?.intValue ?? 0) > 0 }
            #expect(answers.count == id - 1)
            for answer in answers {
                let code = answer["error"]?["code"]?.stringValue
                #expect(["item.notFound", "item.invalidPath", "request.unknownOperation"].contains(code ?? "none"),
                        "\(JSONLine.encode(answer))")
            }
            // Not a byte of the secret, not its base64, and the file is where it was, whole.
            let everything = replies.map(JSONLine.encode).joined()
            #expect(!everything.contains(marker) && !everything.contains(Data(marker.utf8).base64EncodedString().prefix(12)))
            #expect(try String(contentsOfFile: vault + "/secret", encoding: .utf8) == marker)
        }
    }

    @Test("Attack 2: a member of a container's group reads, locks, watches and lists only what its own rights allow")
    func groupMemberActsWithItsOwnRights() async throws {
        let group: UInt32 = 54400
        let daemon = try TestDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"]) { root in
            try """
            [[containers]]
            id = "com.example.grocery"
            path = "\(root)/com.example.grocery"
            owner = 0
            group = \(group)
            """.write(toFile: root + "/../ubiquityd.toml", atomically: true, encoding: .utf8)
        }
        defer { daemon.stop(); daemon.cleanUp() }
        chmod(daemon.directory, 0o755)
        chmod(daemon.root, 0o755)
        let container = daemon.root + "/com.example.grocery"
        chown(container, 0, group); chmod(container, 0o750)
        let documents = daemon.documents()
        chown(documents, 0, group); chmod(documents, 0o750)
        let marker = "ROOT-ONLY-\(UInt64.random(in: 1...UInt64.max))"
        let secret = try daemon.place("Secret", contents: marker)
        chmod(secret, 0o600)
        let copy = documents + "/Secret.sync-conflict-20261122-100001-NOFER4Z"
        try FS.write(copy, marker); chmod(copy, 0o600)
        let shared = try daemon.place("Shared", contents: "readable by the group")
        chown(shared, 0, group); chmod(shared, 0o640)
        try FS.mkdir(documents + "/private", mode: 0o700)
        let hidden = documents + "/private/Item"
        try FS.write(hidden, marker)
        // A directory the group may enter but not list: its item can be read, its copies not listed.
        try FS.mkdir(documents + "/unlisted", mode: 0o711)
        chmod(documents + "/unlisted", 0o711)
        let unlisted = documents + "/unlisted/Item"
        try FS.write(unlisted, "readable"); chmod(unlisted, 0o644)
        try FS.write(documents + "/unlisted/Item.sync-conflict-20261122-100001-NOFER4Z", marker)
        func send(_ id: Int, _ op: String, _ fields: [String: JSONValue]) -> String { Self.request(id, op, fields) }
        let replies = try AuthorizationTests.exchange(as: Self.mallory, groups: [group], socket: daemon.socket, [
            #"{"id":0,"op":"hello","version":1}"#,
            send(1, "version.read", ["path": .string(secret), "version": .string("current")]),
            send(2, "version.resolve", ["path": .string(secret), "keep": .string("current")]),
            send(3, "versions.list", ["path": .string(secret)]),
            send(4, "document.lock", ["path": .string(secret)]),
            send(5, "document.watch", ["path": .string(secret)]),
            send(6, "document.lock", ["path": .string(shared)]),
            send(7, "document.watch", ["path": .string(shared)]),
            send(8, "versions.list", ["path": .string(shared)]),
            send(9, "versions.list", ["path": .string(hidden)]),
            send(10, "document.lock", ["path": .string(documents + "/New")]),
            send(11, "versions.list", ["path": .string(unlisted)]),
            send(12, "document.watch", ["path": .string(unlisted)]),
        ])
        func code(_ id: Int) -> String? {
            let reply = replies.first { $0["id"]?.intValue == id }
            return reply?["error"]?["code"]?.stringValue ?? (reply?["result"] != nil ? "ok" : nil)
        }
        #expect(code(1) == "request.unknownOperation")
        #expect(code(2) == "request.unknownOperation")
        #expect(code(3) == "item.forbidden")        // may not read it
        #expect(code(4) == "item.forbidden")        // may not write it
        #expect(code(5) == "item.forbidden")
        #expect(code(6) == "item.forbidden")        // may read, not write: no lock
        #expect(code(7) == "ok")                    // may read: may watch
        #expect(code(8) == "ok")
        #expect(code(9) == "item.forbidden")        // may not search private/
        #expect(code(10) == "item.forbidden")       // may not create in Documents/
        #expect(code(11) == "item.forbidden")       // may read the item, not list its directory
        #expect(code(12) == "ok")
        let everything = replies.map(JSONLine.encode).joined()
        #expect(!everything.contains(marker) && !everything.contains(Data(marker.utf8).base64EncodedString().prefix(12)))
        #expect(FileManager.default.fileExists(atPath: copy))
    }

    @Test("Attack 3: 300 document watches on a connection that stops reading while another locks and unlocks 1,000 times: capped, coalesced, the daemon does not grow")
    func watchesThatAreNeverRead() async throws {
        try await Self.withMalloryDaemon { daemon, mine in
            let document = mine + "/Documents/doc.txt"
            #expect(try Self.asMallory(["sh", "-c", "echo hi > '\(document)'"]) == 0)
            let script = #"""
            import json, socket, sys
            path, document, watches, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
            class Client:
                def __init__(self):
                    self.s = socket.socket(socket.AF_UNIX); self.s.connect(path); self.buffer = b""
                def send(self, obj): self.s.sendall((json.dumps(obj) + "\n").encode())
                def response(self, rid):
                    while True:
                        while b"\n" not in self.buffer:
                            chunk = self.s.recv(1 << 16)
                            if not chunk: raise SystemExit("closed")
                            self.buffer += chunk
                        line, self.buffer = self.buffer.split(b"\n", 1)
                        message = json.loads(line)
                        if message.get("id") == rid: return message
            watcher, locker = Client(), Client()
            for c in (watcher, locker):
                c.send({"id": 0, "op": "hello", "version": 1}); c.response(0)
            for i in range(1, watches + 1):
                watcher.send({"id": i, "op": "document.watch", "path": document})
            answers = [watcher.response(i) for i in range(1, watches + 1)]
            ok = sum(1 for a in answers if "result" in a)
            busy = sum(1 for a in answers if a.get("error", {}).get("code") == "server.busy")
            for n in range(cycles):
                lock = locker.response((locker.send({"id": 2 * n + 1, "op": "document.lock", "path": document}), 2 * n + 1)[1])
                locker.send({"id": 2 * n + 2, "op": "document.unlock", "lock": lock["result"]["lock"]}); locker.response(2 * n + 2)
            print(json.dumps({"ok": ok, "busy": busy}), flush=True)
            sys.stdin.readline()
            """#
            let rssBefore = try Self.residentBytes(of: daemon.pid)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(Self.mallory)", "--regid=\(Self.mallory)", "--clear-groups",
                                 "/usr/bin/python3", "-c", script, daemon.socket, document, "300", "1000"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            defer { try? input.fileHandleForWriting.close(); process.waitUntilExit() }
            guard let line = LineReader(output.fileHandleForReading).next(within: 120) else {
                Issue.record("the attack script did not finish"); return
            }
            let summary = try JSONLine.decode(Array(line.utf8))
            // The watcher never read an event: whatever the daemon still holds for it is in memory now.
            let grown = try Self.residentBytes(of: daemon.pid) - rssBefore
            #expect(summary["ok"]?.intValue == 256, "\(line)")
            #expect(summary["busy"]?.intValue == 44, "\(line)")
            #expect(grown < 48 << 20, "the daemon grew by \(grown >> 20) MiB holding a silent subscriber's lock events")
            // And the daemon still answers others.
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":1,"op":"hello","version":1}"#)
            #expect(try client.request(#"{"id":2,"op":"status"}"#).response["result"] != nil)
        }
    }

    @Test("versions.list of an item with 1,005 conflict copies of 200-byte names lists the oldest that fit 1,000 and 1 MiB, and says it is truncated")
    func versionsListIsBounded() async throws {
        try await withDaemon { daemon in
            let name = "Item_" + String(repeating: "p", count: 170)
            let item = try daemon.place(name, contents: "x")
            let documents = daemon.documents()
            for n in 0..<1_005 {
                let time = String(format: "%02d%02d%02d", n / 3600, n / 60 % 60, n % 60)
                try FS.write(documents + "/\(name).sync-conflict-20261122-\(time)-NOFER4Z", "copy")
            }
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            let listed = try client.request(Self.request(1, "versions.list", ["path": .string(item)])).response
            let others = listed["result"]?["others"]?.arrayValue ?? []
            #expect(listed["result"]?["truncated"] == .bool(true))
            #expect(others.count > 100 && others.count <= 1_000, "\(others.count) listed")
            #expect(JSONLine.encode(listed).utf8.count <= ServerLimits().maxLineBytes + 4_096)
            #expect(others.first?["id"]?.stringValue?.contains("-20261122-000000-") == true)
        }
    }

    @Test("Item paths go below the root the daemon holds: a container moved away and replaced is not followed by path until a reload opens it again")
    func itemPathsUseTheHeldRoot() async throws {
        try await withTestDaemon { daemon in
            let container = daemon.root + "/com.example.grocery"
            let original = try daemon.place("Item_A", contents: "held")
            #expect(rename(container, container + ".moved") == 0)
            try FS.mkdirs(container + "/Documents")
            try FS.write(container + "/Documents/Item_B", "new")
            let client = try RawClient.greeted(socket: daemon.socket)
            func listed(_ path: String) throws -> String? {
                let answer = try client.request(Self.request(1, "versions.list", ["path": .string(path)])).response
                return answer["error"]?["code"]?.stringValue ?? (answer["result"] != nil ? "ok" : nil)
            }
            #expect(try listed(original) == "ok")                              // the held directory
            #expect(try listed(container + "/Documents/Item_B") == "item.notFound")
            try daemon.reload(within: 20)
            #expect(try listed(container + "/Documents/Item_B") == "ok")     // the reload opened the new root
            #expect(try listed(original) == "item.notFound")
        }
    }

    @Test("Attack 4: query.results of a stopped query, once its items are gone and their index slots hold files of a container the attacker may not read, gives what the query found, not those files")
    func stoppedResultsAfterTheirSlotsAreReused() async throws {
        try await Self.withMalloryDaemon { daemon, mine in
            for name in ["Mine_1", "Mine_2", "Mine_3"] { try daemon.place(name, in: Self.container, contents: "mine") }
            let mallory = try Self.MalloryConnection(socket: daemon.socket)
            defer { mallory.close() }
            mallory.send(#"{"id":0,"op":"hello","version":1}"#)
            mallory.send(Self.request(1, "query.start", ["predicate": .string("kMDItemFSName LIKE 'Mine_*'"), "scope": .string("documents"),
                                                         "live": .bool(false)]))
            let answer = try mallory.next { $0["event"]?.stringValue == "query.gatheringFinished" }
            let query = try #require(answer["query"]?.intValue)
            let paths = { (value: JSONValue?) in (value?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }.sorted() }
            #expect(paths(answer["results"]) == ["Mine_1", "Mine_2", "Mine_3"].map { mine + "/Documents/" + $0 })

            // Her files go; the grocery container, which she may not read, gets as many new ones:
            // the index gives them the slots hers had.
            let root = try RawClient.greeted(socket: daemon.socket)
            let barrier = #"{"id":9,"op":"query.start","predicate":"FALSEPREDICATE","live":false}"#
            for name in ["Mine_1", "Mine_2", "Mine_3"] { try FileManager.default.removeItem(atPath: mine + "/Documents/" + name) }
            _ = try root.request(barrier)
            let marker = "SECRET-\(UInt64.random(in: 1...UInt64.max))"
            for i in 1...3 { try daemon.place("\(marker)_\(i)", contents: "root only") }
            _ = try root.request(barrier)

            mallory.send(Self.request(2, "query.results", ["query": .integer(Int64(query))]))
            let later = try mallory.next { $0["id"]?.intValue == 2 }
            #expect(paths(later["result"]?["results"]) == paths(answer["results"]), "\(JSONLine.encode(later))")
            #expect(!JSONLine.encode(later).contains(marker))
        }
    }

    /// A connection of uid 54321 (`setpriv socat`) written and read line by line, for attacks
    /// whose next request depends on what happened meanwhile.
    final class MalloryConnection {
        let process = Process()
        let input = Pipe(), output = Pipe()
        let lines: LineReader

        init(socket: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(TrustBoundaryAttackTests.mallory)", "--regid=\(TrustBoundaryAttackTests.mallory)",
                                 "--clear-groups", "socat", "-", "UNIX-CONNECT:" + socket]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            lines = LineReader(output.fileHandleForReading)
        }

        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        /// The next line that `wanted` accepts, within 30 s.
        func next(_ wanted: (JSONValue) -> Bool) throws -> JSONValue {
            let deadline = Date().addingTimeInterval(30)
            while let line = lines.next(within: max(0, deadline.timeIntervalSinceNow)) {
                let message = try JSONLine.decode(Array(line.utf8))
                if wanted(message) { return message }
            }
            throw TestDaemonError("as uid \(TrustBoundaryAttackTests.mallory), no awaited line within 30 s")
        }

        func close() {
            try? input.fileHandleForWriting.close()
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// `VmRSS` of a process, in bytes.
    static func residentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else {
            throw TestDaemonError("no VmRSS for pid \(pid)")
        }
        return kilobytes << 10
    }
}
