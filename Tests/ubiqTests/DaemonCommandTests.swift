import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// `ubiq query`, `watch`, `containers` and `status` against the real daemon.
@Suite(.ownThreads) struct DaemonCommandTests {
    @Test func queryPrintsATableAndNDJSON() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        try daemon.place("Item_1", contents: "milk")
        try daemon.place("Item_2", contents: "bread and butter")
        let table = try ubiq.run(["query", "--socket", daemon.socket, "name LIKE 'Item_*'",
                                 "--attr", "name", "--attr", "size", "--sort", "size:desc"])
        #expect(table.status == 0)
        #expect(table.stdout == """
            NAME    SIZE  PATH
            Item_2  16    \(daemon.documents())/Item_2
            Item_1  4     \(daemon.documents())/Item_1

            """)
        let json = try ubiq.run(["query", "--json", "--socket", daemon.socket, "name == %@", "Item_1"])
        #expect(json.status == 0)
        #expect(json.stdout == #"{"attributes":{"kMDItemFSName":"Item_1"},"path":""# + daemon.documents() + "/Item_1\"}\n")
    }

    /// `--json` prints each item as JSONLine writes the item the daemon sent (ubiq copies the
    /// daemon's bytes of an item rather than reading and writing it): odd names, every kind of
    /// value, an answer long enough to arrive in many reads.
    @Test func queryJSONIsEachItemAsJSONLineWritesIt() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let names = ["Item_plain", "Item_caf\u{E9}", "Item_e\u{301}", "Item_\u{1F34E}", "Item_\"q\"", "Item_\\", "Item_\n",
                     "Item_\t", "Item_\u{1}", "Item_\u{1B}[2J", "Item_\u{2028}\u{2029}", "Item_\u{7F}", "Item_\u{FEFF}"]
        for i in 0..<600 { _ = try daemon.place(names[i % names.count] + "_\(i)", contents: String(repeating: "x", count: i % 7)) }
        try FileManager.default.createDirectory(atPath: daemon.documents() + "/Item_directory", withIntermediateDirectories: false)
        let attributes = ["name", "path", "kMDItemURL", "size", "kMDItemFSCreationDate", "kMDItemFSContentChangeDate",
                          "kMDItemContentTypeTree", "isDirectory", "kMDItemUserTags", "hasUnresolvedConflicts"]
        let predicate = "name LIKE 'Item_*'"

        let client = try RawClient(socket: daemon.socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        try client.send(JSONLine.encode(.object([
            "id": .integer(1), "op": .string("query.start"), "predicate": .string(predicate), "live": .bool(false),
            "attributes": .array(attributes.map { .string($0) }),
        ])))
        var finished = try client.readJSON(within: 30)
        while finished["event"]?.stringValue != "query.gatheringFinished" {
            try #require(finished["error"] == nil, "\(finished)")
            finished = try client.readJSON(within: 30)
        }
        let items = try (finished["results"]?.arrayValue ?? []).map { try WireItem(json: $0) }
        #expect(items.count == 601)

        let json = try ubiq.run(["query", "--json", "--socket", daemon.socket, predicate] + attributes.flatMap { ["--attr", $0] })
        #expect(json.status == 0)
        // Bytes, not Strings: String's == would take "é" for "e\u{301}".
        #expect(Array(json.stdout.utf8) == Array(items.map { JSONLine.encode($0.json) + "\n" }.joined().utf8))
    }

    @Test func badPredicateExits2WithACaret() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let r = try ubiq.run(["query", "--socket", daemon.socket, "name LIKE )"])
        #expect(r.status == 2)
        #expect(r.stderr == """
            ubiq: predicate error at 10: expected a value after LIKE, found ')' [predicate.syntax]
              name LIKE )
                        ^

            """)
    }

    @Test func unknownContainerExits1() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let r = try ubiq.run(["query", "--socket", daemon.socket, "--container", "com.example.nope", "name == 'x'"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("ubiq: ") && r.stderr.contains("[container.unknown]"))
    }

    @Test func statusAndContainers() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let status = try ubiq.run(["status", "--json", "--socket", daemon.socket])
        #expect(status.status == 0)
        #expect(status.stdout.contains("\"pid\":\(daemon.process.processIdentifier)"))
        #expect(status.stdout.contains("\"socket\":\"\(daemon.socket)\""))
        let human = try ubiq.run(["status", "--socket", daemon.socket])
        #expect(human.stdout.hasPrefix("ubiquityd "))
        #expect(human.stdout.contains("containers   com.example.grocery"))
        let containers = try ubiq.run(["containers", "--socket", daemon.socket])
        #expect(containers.status == 0)
        #expect(containers.stdout.hasPrefix("ID                   ITEMS  AVAILABLE  PATH\ncom.example.grocery  "))
    }

    @Test func noDaemonExits3() throws {
        let path = "/tmp/ubq-none-\(getpid()).sock"
        for command in [["status"], ["containers"], ["query", "name == 'x'"]] {
            let r = try ubiq.run(command + ["--socket", path])
            #expect(r.status == 3)
            #expect(r.stderr == "ubiq: ubiquityd is not running (no socket at \(path)); start it with `make run` or `systemctl --user start ubiquityd`\n")
        }
    }

    /// A socket that accepts but never answers (socket activation of a daemon that fails to
    /// start): every command gives up after --timeout with a sentence, exit 3; the deadline kills a
    /// client that would wait for ever.
    @Test func aSilentSocketTimesOutWithAClearMessage() throws {
        let listener = try SilentListener(path: "/tmp/ubq-silent-\(getpid()).sock")
        defer { withExtendedLifetime(listener) {}; unlink(listener.path) }
        for command in [["status"], ["containers"], ["query", "name == 'x'"]] {
            let r = try ubiq.run(command + ["--socket", listener.path, "--timeout", "1"], deadline: 20)
            #expect(r.status == 3, "\(command): \(r.stderr)")
            #expect(r.stderr == "ubiq: ubiquityd at \(listener.path) accepted the connection but did not answer within 1 s; it may be failing to start or stuck: see `systemctl status ubiquityd` (or `--user`) and its journal\n")
        }
        // Before the subcommand too, like --socket.
        let hoisted = try ubiq.run(["--timeout", "1", "--socket", listener.path, "status"], deadline: 20)
        #expect(hoisted.status == 3, "\(hoisted.stderr)")
        let zero = try ubiq.run(["status", "--socket", listener.path, "--timeout", "0"], deadline: 20)
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--timeout must be a positive number of seconds, found 0"))
    }

    @Test func watchPrintsUpdatesUntilSIGINT() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let pipe = Pipe()
        let process = Process()
        process.executableURL = ubiq.url
        process.arguments = ["watch", "--json", "--batching", "0", "--socket", daemon.socket, "name LIKE 'Item_*'"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let lines = LineReader(pipe.fileHandleForReading)
        let gathered = try #require(lines.next(within: 10))
        #expect(gathered.hasPrefix(#"{"clock":"c1-"#))
        #expect(gathered.contains(#""count":0,"event":"query.gatheringFinished","results":[]"#))
        try daemon.place("Item_9", contents: "x")
        let update = try #require(lines.next(within: 10))
        #expect(update.contains(#""event":"query.update""#))
        #expect(update.contains(#""path":""# + daemon.documents() + "/Item_9\""))
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    /// `ubiq query ... | head -1`: the reader is gone before the first line. Once connected, SIGPIPE
    /// is ignored (NIO), and FileHandle.write used to trap on the EPIPE (status 132 and a backtrace).
    @Test func queryIntoAClosedPipeExitsQuietly() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        for i in 1...50 { try daemon.place("Item_\(i)", contents: "x") }
        let r = try runIntoClosedPipe(["query", "--json", "--socket", daemon.socket, "name LIKE 'Item_*'"])
        #expect(r.reason == .exit)
        #expect(r.status == 0)
        #expect(r.stderr == "")
    }

    /// Without a daemon nothing else ignores SIGPIPE: `ubiq` does, so it exits 0 rather than dying of it.
    @Test(arguments: [["predicate", "attributes"], ["predicate", "attributes", "--json"], ["predicate", "--help"]])
    func predicateIntoAClosedPipeExitsQuietly(arguments: [String]) throws {
        let r = try runIntoClosedPipe(arguments)
        #expect(r.reason == .exit)
        #expect(r.status == 0)
        #expect(r.stderr == "")
    }

    /// Runs `ubiq` with standard output a pipe whose read end is already closed, so its first write
    /// fails with EPIPE (deterministically: no reader ever exists).
    private func runIntoClosedPipe(_ arguments: [String]) throws
        -> (reason: Process.TerminationReason, status: Int32, stderr: String) {
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        let process = Process()
        process.executableURL = ubiq.url
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus, stderr)
    }
}
