import Foundation
import Glibc
import Testing
import UbiquityTesting

/// `ubiq query`, `watch`, `containers` and `status` against the real daemon.
@Suite struct DaemonCommandTests {
    @Test func queryPrintsATableAndNDJSON() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        try daemon.place("Item_1", contents: "milk")
        try daemon.place("Item_2", contents: "bread and butter")
        let table = try CLI.run(["query", "--socket", daemon.socket, "name LIKE 'Item_*'",
                                 "--attr", "name", "--attr", "size", "--sort", "size:desc"])
        #expect(table.status == 0)
        #expect(table.stdout == """
            NAME    SIZE  PATH
            Item_2  16    \(daemon.documents())/Item_2
            Item_1  4     \(daemon.documents())/Item_1

            """)
        let json = try CLI.run(["query", "--json", "--socket", daemon.socket, "name == %@", "Item_1"])
        #expect(json.status == 0)
        #expect(json.stdout == #"{"attributes":{"kMDItemFSName":"Item_1"},"path":""# + daemon.documents() + "/Item_1\"}\n")
    }

    @Test func badPredicateExits2WithACaret() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let r = try CLI.run(["query", "--socket", daemon.socket, "name LIKE )"])
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
        let r = try CLI.run(["query", "--socket", daemon.socket, "--container", "com.example.nope", "name == 'x'"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("ubiq: ") && r.stderr.contains("[container.unknown]"))
    }

    @Test func statusAndContainers() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let status = try CLI.run(["status", "--json", "--socket", daemon.socket])
        #expect(status.status == 0)
        #expect(status.stdout.contains("\"pid\":\(daemon.process.processIdentifier)"))
        #expect(status.stdout.contains("\"socket\":\"\(daemon.socket)\""))
        let human = try CLI.run(["status", "--socket", daemon.socket])
        #expect(human.stdout.hasPrefix("ubiquityd "))
        #expect(human.stdout.contains("containers   com.example.grocery"))
        let containers = try CLI.run(["containers", "--socket", daemon.socket])
        #expect(containers.status == 0)
        #expect(containers.stdout.hasPrefix("ID                   ITEMS  AVAILABLE  PATH\ncom.example.grocery  "))
    }

    @Test func noDaemonExits3() throws {
        let path = "/tmp/ubq-none-\(getpid()).sock"
        for command in [["status"], ["containers"], ["query", "name == 'x'"]] {
            let r = try CLI.run(command + ["--socket", path])
            #expect(r.status == 3)
            #expect(r.stderr == "ubiq: ubiquityd is not running (no socket at \(path)); start it with `make run` or `systemctl --user start ubiquityd`\n")
        }
    }

    @Test func watchPrintsUpdatesUntilSIGINT() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let pipe = Pipe()
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["watch", "--json", "--batching", "0", "--socket", daemon.socket, "name LIKE 'Item_*'"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let lines = LineReader(pipe.fileHandleForReading)
        let gathered = try #require(lines.next(within: 10))
        #expect(gathered.hasPrefix(#"{"count":0,"event":"gathered","results":[]"#))
        try daemon.place("Item_9", contents: "x")
        let update = try #require(lines.next(within: 10))
        #expect(update.contains(#""event":"update""#))
        #expect(update.contains(#""path":""# + daemon.documents() + "/Item_9\""))
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test(arguments: ["query", "watch", "status", "containers"])
    func helpMatchesSnapshot(command: String) throws {
        let r = try CLI.run([command, "--help"])
        #expect(r.status == 0)
        #expect(r.stdout == (try CLI.snapshot("\(command)-help.txt")), "update Tests/ubiqTests/Snapshots/\(command)-help.txt if intended")
    }
}

/// Lines of a child's standard output, read on a background thread; `next` waits with a deadline.
final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty { condition.broadcast(); condition.unlock(); return }
                partial.append(data)
                while let newline = partial.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
                    partial = Data(partial[(newline + 1)...])
                }
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// The next line, or nil when none arrives within `seconds`.
    func next(within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            guard condition.wait(until: deadline) else { return nil }
        }
        return lines.removeFirst()
    }
}
