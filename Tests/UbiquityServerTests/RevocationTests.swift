import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// A reload that takes a container away from a user stops that user's live queries at once:
/// one `container.forbidden` event, no item after it, and the query's results refused.
/// Needs root (the client runs as uid 54321 through setpriv).
@Suite(.ownThreads) struct RevocationTests {
    static let user: UInt32 = 54321

    /// An interactive socat session as another uid: lines in, JSON lines out with a deadline.
    final class OtherUserClient {
        let process = Process()
        let input = Pipe()
        let lines: LineReader

        init(uid: UInt32, socket: String) throws {
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "socat", "-", "UNIX-CONNECT:" + socket]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            lines = LineReader(output.fileHandleForReading)
        }

        deinit { if process.isRunning { process.terminate() } }

        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        /// The next line that satisfies `matching`, skipping others; nil after 10 s.
        func next(_ matching: (JSONValue) -> Bool) throws -> JSONValue? {
            let deadline = Date().addingTimeInterval(10)
            while let line = lines.next(within: max(0, deadline.timeIntervalSinceNow)) {
                let value = try JSONLine.decode(Array(line.utf8))
                if matching(value) { return value }
            }
            return nil
        }
    }

    @Test func revokedAccessStopsLiveQueriesAndRefusesTheirResults() async throws {
        let theirs = try TheirContainer(owner: Self.user)
        let container = theirs.container, config = theirs.config
        func configure(owner: UInt32) throws { try theirs.configure(owner: owner) }
        #expect(FileManager.default.createFile(atPath: container + "/Documents/Item_1", contents: nil))

        try await withTestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"]) { daemon in
            chmod(daemon.directory, 0o755)
            let client = try OtherUserClient(uid: Self.user, socket: daemon.socket)
            client.send(#"{"id":0,"op":"hello","version":1}"#)
            client.send(#"{"id":1,"op":"query.start","container":"com.example.theirs","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#)
            let gathered = try #require(try client.next { $0["event"]?.stringValue == "query.gatheringFinished" })
            #expect(gathered["results"]?.arrayValue?.count == 1)
            let query = try #require(gathered["query"]?.intValue)

            // The administrator gives the container to root and reloads.
            try configure(owner: 0)
            daemon.signal(SIGHUP)
            let forbidden = try #require(try client.next { $0["event"] != nil },
                                         "no event after the reload: the query kept running")
            #expect(forbidden["event"]?.stringValue == "container.forbidden", "\(forbidden)")
            #expect(forbidden["query"]?.intValue == query)
            #expect(forbidden["container"]?.stringValue == "com.example.theirs")

            // Nothing more for this query, whatever changes; its results are refused.
            #expect(FileManager.default.createFile(atPath: container + "/Documents/Item_2", contents: nil))
            client.send(#"{"id":2,"op":"query.results","query":\#(query)}"#)
            let results = try #require(try client.next { $0["id"]?.intValue == 2 || $0["event"] != nil })
            #expect(results["error"]?["code"]?.stringValue == "container.forbidden", "\(results)")
            client.send(#"{"id":3,"op":"status"}"#)
            let status = try #require(try client.next { $0["id"]?.intValue == 3 || $0["event"] != nil })
            #expect(status["result"]?["liveQueries"]?.intValue == 0, "\(status)")
        }
    }

    @Test func revokedAccessStopsLiveFetchesAndStoreChanges() async throws {
        let theirs = try TheirContainer(owner: Self.user)
        let config = theirs.config
        func configure(owner: UInt32) throws { try theirs.configure(owner: owner) }
        let schema = #"{"version":1,"tables":[{"name":"items","columns":[{"name":"name","type":"string","nullable":false}]}]}"#
        try await withTestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"]) { daemon in
            chmod(daemon.directory, 0o755)
            let root = try RawClient.greeted(socket: daemon.socket)
            _ = try root.result(#"{"id":1,"op":"store.open","container":"com.example.theirs","store":"list","schema":\#(schema)}"#)
            let client = try OtherUserClient(uid: Self.user, socket: daemon.socket)
            client.send(#"{"id":0,"op":"hello","version":1}"#)
            client.send(#"{"id":1,"op":"store.open","container":"com.example.theirs","store":"list","schema":\#(schema)}"#)
            client.send(#"{"id":2,"op":"store.watch","container":"com.example.theirs","store":"list","table":"items"}"#)
            let gathered = try #require(try client.next { $0["event"]?.stringValue == "store.gatheringFinished" })
            #expect(gathered["count"]?.intValue == 0)
            _ = try root.result(#"{"id":2,"op":"store.save","container":"com.example.theirs","store":"list","changes":[{"insert":"items","values":{"name":"a"}}]}"#)
            // Both kinds of event come, in one write (store.changed first).
            var seen: [String: JSONValue] = [:]
            while seen.count < 2, let event = try client.next({ $0["event"] != nil }) { seen[event["event"]?.stringValue ?? ""] = event }
            #expect(seen["store.update"]?["added"]?.arrayValue?.count == 1)
            #expect(seen["store.changed"]?["inserted"]?.arrayValue?.count == 1)

            // The administrator gives the container to root and reloads; the next change stops the
            // live fetch with container.forbidden and sends no row.
            try configure(owner: 0)
            try daemon.reload(within: 10)
            _ = try root.result(#"{"id":3,"op":"store.save","container":"com.example.theirs","store":"list","changes":[{"insert":"items","values":{"name":"secret"}}]}"#)
            let stopped = try #require(try client.next { $0["event"] != nil }, "no event after the reload")
            #expect(stopped["event"]?.stringValue == "store.watchStopped", "\(stopped)")
            #expect(stopped["code"]?.stringValue == "container.forbidden")
            client.send(#"{"id":3,"op":"store.fetch","container":"com.example.theirs","store":"list","table":"items"}"#)
            let refused = try #require(try client.next { $0["id"]?.intValue == 3 || $0["event"] != nil })
            #expect(refused["error"]?["code"]?.stringValue == "container.forbidden", "\(refused)")
        }
    }
}

/// `com.example.theirs` in a folder of its own that other uids may enter, declared in a
/// configuration file with the owner given (``configure(owner:)`` changes it for a reload).
final class TheirContainer {
    let base: String
    let container: String
    let config: String

    init(owner: UInt32) throws {
        var template = Array("/tmp/ubqr-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
        base = String(cString: made)
        chmod(base, 0o755)
        container = base + "/com.example.theirs"
        config = base + "/ubiquityd.toml"
        try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
        try configure(owner: owner)
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }

    func configure(owner: UInt32) throws {
        try "[[containers]]\nid = \"com.example.theirs\"\npath = \"\(container)\"\nowner = \(owner)\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
    }
}
