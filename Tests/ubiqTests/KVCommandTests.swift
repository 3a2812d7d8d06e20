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

    /// Another device's file written as a sync engine delivers it: complete, then renamed into
    /// place, each entry stamped a second after now.
    static func deliver(_ entries: [String: Int], into root: String) throws {
        let folder = root + "/com.example.grocery/.ubiquity-kv"
        let stamp = Int64(Date().timeIntervalSince1970 * 1_000_000) + 1_000_000
        let body = entries.map { #""\#($0.key)":{"modified":\#(stamp),"value":\#($0.value)}"# }.joined(separator: ",")
        try #"{"format":"ubiquity.kv","version":1,"device":"phone","entries":{\#(body)}}"#
            .write(toFile: folder + "/.incoming", atomically: false, encoding: .utf8)
        guard rename(folder + "/.incoming", folder + "/phone.json") == 0 else { throw TestDaemonError("rename: \(String(cString: strerror(errno)))") }
    }

    @Test func watchSaysWhenTheStoreWasReadAgainAndPrintsTheKeysThatDiffer() throws {
        // Stores of at most four keys: one file of another device changes more.
        let daemon = try TestDaemon(arguments: ["--config", "{dir}/ubiquityd.toml", "--socket", "{socket}"], prepare: { root in
            try "save_index = false\n[key_value]\nmax_keys = 4\n[[roots]]\npath = \"\(root)\"\n"
                .write(toFile: root + "/../ubiquityd.toml", atomically: true, encoding: .utf8)
        })
        defer { daemon.stop(); daemon.cleanUp() }
        #expect(try ubiq.run(["kv", "set", "own", "mine", "--socket", daemon.socket]).status == 0)     // makes the store's folder
        var watchers: [(process: Process, lines: LineReader)] = []
        defer { for watcher in watchers where watcher.process.isRunning { kill(watcher.process.processIdentifier, SIGKILL) } }
        for json in [false, true] {
            let out = Pipe(), err = Pipe()
            let process = Process()
            process.executableURL = ubiq.url
            process.arguments = ["kv", "watch", "--socket", daemon.socket] + (json ? ["--json"] : [])
            process.standardOutput = out
            process.standardError = err
            try process.run()
            watchers.append((process, LineReader(out.fileHandleForReading)))
            #expect(try #require(LineReader(err.fileHandleForReading).next(within: 10)).contains("watching the key-value store"))
        }
        try Self.deliver(["a1": 1, "a2": 2, "a3": 3], into: daemon.root)
        for key in 1...3 { #expect(watchers[0].lines.next(within: 10) == "initialSyncChange  a\(key) = \(key)") }
        #expect(watchers[1].lines.next(within: 10) == #"{"reason":"initialSyncChange","removed":[],"values":{"a1":1,"a2":2,"a3":3}}"#)
        // a1 and a2 go, a3 changes, b1 and b2 come: five keys changed, more than the four the
        // store may hold (it holds own, a3, b1 and b2).
        try Self.deliver(["a3": 30, "b1": 1, "b2": 2], into: daemon.root)
        #expect(watchers[0].lines.next(within: 10) == "serverChange  (more keys changed than the daemon lists; read again: 5 differ)")
        for line in ["a1 -", "a2 -", "a3 = 30", "b1 = 1", "b2 = 2"] { #expect(watchers[0].lines.next(within: 10) == "serverChange  " + line) }
        #expect(watchers[1].lines.next(within: 10) == #"{"reason":"serverChange","removed":["a1","a2"],"reread":true,"values":{"a3":30,"b1":1,"b2":2}}"#)
        for watcher in watchers {
            kill(watcher.process.processIdentifier, SIGINT)
            watcher.process.waitUntilExit()
            #expect(watcher.process.terminationStatus == 0)
        }
    }
}
