import Foundation
import Glibc
import Testing
import UbiquityTesting

/// `ubiq kv` against the real daemon.
@Suite(.serialized, .ownThreads) struct KVCommandTests {
    @Test func setGetListRemoveWithAndWithoutJSON() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        #expect(try ubiq.run(["kv", "set", "sortOrder", "name"] + s).status == 0)
        #expect(try ubiq.run(["--socket", daemon.socket, "kv", "set", "launches", "3", "--type", "integer"]).status == 0)
        #expect(try ubiq.run(["kv", "set", "when", "2026-05-01T12:00:00Z", "--type", "date"] + s).status == 0)
        #expect(try ubiq.run(["kv", "get", "sortOrder"] + s).stdout == "name\n")
        #expect(try ubiq.run(["kv", "get", "when"] + s).stdout == #"{"$date":"2026-05-01T12:00:00.000Z"}"# + "\n")
        #expect(try ubiq.run(["kv", "get", "launches", "--json"] + s).stdout
                == #"{"container":"com.example.grocery","key":"launches","value":3}"# + "\n")
        let list = try ubiq.run(["kv", "list"] + s)
        #expect(list.stdout.contains("launches   integer  3"))
        #expect(list.stdout.contains("3 of 1024 keys"))
        #expect(try ubiq.run(["kv", "rm", "launches"] + s).status == 0)
        let missing = try ubiq.run(["kv", "get", "launches"] + s)
        #expect(missing.status == 1 && missing.stdout.isEmpty && missing.stderr.contains("'launches' has no value"))
    }

    @Test func badInputGetsClearErrorsAndStatuses() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let notInteger = try ubiq.run(["kv", "set", "k", "abc", "--type", "integer"] + s)
        #expect(notInteger.status == 2 && notInteger.stderr.contains("'abc' is not a whole number"))
        let badType = try ubiq.run(["kv", "set", "k", "1", "--type", "number"] + s)
        #expect(badType.status == 64 && badType.stderr.contains("--type must be one of"))
        let badJSON = try ubiq.run(["kv", "set", "k", #"{"$data":"%%"}"#, "--type", "json"] + s)
        #expect(badJSON.status == 2 && badJSON.stderr.contains("not base64"))
        let longKey = try ubiq.run(["kv", "set", String(repeating: "k", count: 65), "v"] + s)
        #expect(longKey.status == 1 && longKey.stderr.contains("[kv.quotaExceeded]"))
        let noDaemon = try ubiq.run(["kv", "list", "--socket", daemon.directory + "/nothing.sock"])
        #expect(noDaemon.status == 3)
    }

    @Test func watchPrintsAnotherProcessesChanges() throws {
        let daemon = try TestDaemon()
        defer { daemon.stop(); daemon.cleanUp() }
        let out = Pipe(), err = Pipe()
        let process = Process()
        process.executableURL = ubiq.url
        process.arguments = ["kv", "watch", "--json", "--socket", daemon.socket]
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let ready = LineReader(err.fileHandleForReading), lines = LineReader(out.fileHandleForReading)
        #expect(try #require(ready.next(within: 10)).contains("watching the key-value store of com.example.grocery"))
        #expect(try ubiq.run(["kv", "set", "sortOrder", "date", "--socket", daemon.socket]).status == 0)
        #expect(lines.next(within: 10) == #"{"reason":"serverChange","removed":[],"values":{"sortOrder":"date"}}"#)
        #expect(try ubiq.run(["kv", "rm", "sortOrder", "--socket", daemon.socket]).status == 0)
        #expect(lines.next(within: 10) == #"{"reason":"serverChange","removed":["sortOrder"],"values":{}}"#)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
