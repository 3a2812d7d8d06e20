import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// A container's owner controls everything in it, `.ubiquity-kv/` included, and the device id is
/// public (it names this device's file). These attacks come from a real second uid (54321, via
/// `setpriv … socat`, as ``AuthorizationTests``) against a daemon running as root (docs/kv-store.md).
@Suite("Key-value store against hostile containers and state directories", .serialized, .ownThreads)
struct KeyValueHostileTests {
    static let attacker = AuthorizationTests.otherUID
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    func connect(_ socket: String) throws -> RawClient { try RawClient.greeted(socket: socket) }

    func result(_ client: RawClient, _ line: String) throws -> JSONValue { try client.result(line) }

    func degraded(_ client: RawClient) throws -> [String] {
        try result(client, #"{"id":90,"op":"status"}"#)["degraded"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The next `kv.changed` naming `key` on `client`, within a deadline.
    func change(_ client: RawClient, naming key: String, within seconds: Double = 10) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == "kv.changed", message["keys"]?.arrayValue?.contains(.string(key)) == true {
                return message
            }
        }
        throw TestDaemonError("no kv.changed for \(key) within \(seconds) s")
    }

    /// Gives `container` (under the daemon's root) to the attacker and waits until the daemon,
    /// after SIGHUP, reports the new owner.
    func handOver(_ container: String, of daemon: TestDaemon) throws {
        chmod(daemon.directory, 0o755)
        let path = daemon.root + "/" + container
        for inner in ["", "/Documents"] { chown(path + inner, Self.attacker, Self.attacker) }
        try daemon.reload(within: 10)
        let root = try connect(daemon.socket)
        let list = try result(root, #"{"id":1,"op":"containers.list"}"#)
        let owner = list["containers"]?.arrayValue?.first { $0["id"]?.stringValue == container }?["owner"]?.intValue
        guard owner == Int(Self.attacker) else { throw TestDaemonError("the daemon did not see \(container) change owner") }
    }

    /// The attacker's `kv.set` of `key` in `container`: its answer (the exchange throws when none
    /// comes within its deadline).
    func attackerSet(_ key: String, _ value: String, in container: String, socket: String) throws -> JSONValue? {
        let replies = try AuthorizationTests.exchange(as: Self.attacker, socket: socket, [
            Self.hello, #"{"id":1,"op":"kv.set","container":"\#(container)","key":"\#(key)","value":\#(value)}"#,
        ])
        return replies.first { $0["id"]?.intValue == 1 }
    }

    static func replica(device: String, _ entries: String) -> String {
        #"{"format":"ubiquity.kv","version":1,"device":"\#(device)","entries":{\#(entries)}}"# + "\n"
    }

    @Test("FIFOs, links and hard links planted at this device's file and write names: writes answer, nothing outside is written, other stores live on, SIGTERM stops")
    func plantedFilesAtTheWriteNames() async throws {
        try await withTestDaemon(containers: ["com.example.grocery", "com.example.mine"]) { daemon in
            try handOver("com.example.mine", of: daemon)
            let device = try String(contentsOfFile: daemon.directory + "/state/device-id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let folder = daemon.root + "/com.example.mine/.ubiquity-kv"
            // A subscriber of another user's store, to show it still hears remote changes.
            let other = try connect(daemon.socket)
            _ = try result(other, #"{"id":1,"op":"kv.subscribe","container":"com.example.grocery"}"#)
            _ = try result(other, #"{"id":2,"op":"kv.set","container":"com.example.grocery","key":"start","value":1}"#)

            // The attacker's store is loaded and its folder made by a first, ordinary write.
            #expect(try attackerSet("first", "1", in: "com.example.mine", socket: daemon.socket)?["result"]?["stored"] == .bool(true))
            // A root-owned file outside the container, hard-linked at the old temporary name (what
            // fs.protected_hardlinks=0 lets anyone do to a file they can read).
            let victim = daemon.directory + "/victim"
            try "root's secret\n".write(toFile: victim, atomically: false, encoding: .utf8)
            chmod(victim, 0o600)
            let writing = folder + "/.\(device).json.writing"
            try FS.link(victim, writing)
            #expect(try attackerSet("hardlink", "2", in: "com.example.mine", socket: daemon.socket)?["result"]?["stored"] == .bool(true))
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's secret\n")
            // A symbolic link there, and in place of this device's file.
            unlink(writing)
            try FS.symlink(victim, writing)
            try? FS.unlink(folder + "/\(device).json")
            try FS.symlink(victim, folder + "/\(device).json")
            #expect(try attackerSet("symlink", "3", in: "com.example.mine", socket: daemon.socket)?["result"]?["stored"] == .bool(true))
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's secret\n")
            // A FIFO at the temporary name: the write must not wait for a reader.
            unlink(writing)
            #expect(mkfifo(writing, 0o666) == 0)
            chown(writing, Self.attacker, Self.attacker)
            let answer = try attackerSet("fifo", "4", in: "com.example.mine", socket: daemon.socket)
            #expect(answer?["result"]?["stored"] == .bool(true), "\(answer.map(JSONLine.encode) ?? "no answer")")
            let values = try result(connect(daemon.socket), #"{"id":3,"op":"kv.all","container":"com.example.mine"}"#)["values"]
            #expect(values == .object(["first": .integer(1), "hardlink": .integer(2), "symlink": .integer(3), "fifo": .integer(4)]))

            // Another user's store still hears another device's file arrive.
            let grocery = daemon.root + "/com.example.grocery/.ubiquity-kv"
            try placeAtomically(grocery + "/remote.json", contents: Self.replica(device: "remote", #""arrived":{"modified":5,"value":true}"#),
                                staging: daemon.directory)
            #expect(try change(other, naming: "arrived")["reason"] != nil)
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit(within: 15) != nil, "the daemon did not stop on SIGTERM")
        }
    }

    @Test("A FIFO planted at this device's file before the store loads is reported, never opened; the first write replaces it")
    func fifoAtTheStoreFile() async throws {
        try await withTestDaemon(containers: ["com.example.grocery", "com.example.mine"]) { daemon in
            try handOver("com.example.mine", of: daemon)
            let device = try String(contentsOfFile: daemon.directory + "/state/device-id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let folder = daemon.root + "/com.example.mine/.ubiquity-kv"
            try FS.mkdir(folder)
            chown(folder, Self.attacker, Self.attacker)
            #expect(mkfifo(folder + "/\(device).json", 0o666) == 0)
            #expect(mkfifo(folder + "/.\(device).json.writing", 0o666) == 0)
            #expect(mkfifo(folder + "/other.json", 0o666) == 0)
            let answer = try attackerSet("k", "1", in: "com.example.mine", socket: daemon.socket)
            #expect(answer?["result"]?["stored"] == .bool(true), "\(answer.map(JSONLine.encode) ?? "no answer")")
            let lines = try degraded(connect(daemon.socket))
            #expect(lines.contains { $0.contains("other.json") && $0.contains("not a regular file") }, "\(lines)")
            var info = stat()
            #expect(lstat(folder + "/\(device).json", &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        }
    }

    @Test("A far-future entry neither pins the clock nor wins: left out and reported until this device's clock reaches it")
    func farFutureEntry() async throws {
        try await withDaemon { daemon in
            let folder = daemon.root + "/com.example.grocery/.ubiquity-kv"
            try FS.mkdir(folder)
            let year9999: Int64 = 253_402_300_799_999_999
            try placeAtomically(folder + "/zzzz.json", contents: Self.replica(device: "zzzz", #""B":{"modified":\#(year9999),"value":"future"}"#),
                                staging: daemon.directory)
            let client = try connect(daemon.socket)
            _ = try result(client, #"{"id":1,"op":"kv.synchronize"}"#)
            #expect(try result(client, #"{"id":2,"op":"kv.get","key":"B"}"#)["value"] == .null)
            let lines = try degraded(client)
            #expect(lines.contains { $0.contains("zzzz.json") && $0.contains("'B'") && $0.contains("ahead") }, "\(lines)")
            #expect(daemon.log.contains("ahead of this device"))

            #expect(try result(client, #"{"id":3,"op":"kv.set","key":"A","value":1}"#)["stored"] == .bool(true))
            #expect(try result(client, #"{"id":4,"op":"kv.get","key":"A"}"#)["value"] == .integer(1))
            // The write's time is this device's clock, not the planted one.
            let device = try String(contentsOfFile: daemon.directory + "/state/device-id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let own = try JSONLine.decode(Array(try String(contentsOfFile: folder + "/\(device).json", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines).utf8))
            let stamped = own["entries"]?["A"]?["modified"]?.intValue ?? Int.max
            let now = Int(Date().timeIntervalSince1970 * 1_000_000)
            #expect(stamped <= now + 60_000_000, "A was stamped \(stamped), now is \(now)")
            // The other device then writes A after seeing that write: it wins, and ours after it wins again.
            try placeAtomically(folder + "/zzzz.json", contents: Self.replica(device: "zzzz",
                #""B":{"modified":\#(year9999),"value":"future"},"A":{"modified":\#(stamped + 1),"value":"theirs"}"#),
                staging: daemon.directory)
            _ = try result(client, #"{"id":5,"op":"kv.synchronize"}"#)
            #expect(try result(client, #"{"id":6,"op":"kv.get","key":"A"}"#)["value"] == .string("theirs"))
            #expect(try result(client, #"{"id":7,"op":"kv.set","key":"A","value":2}"#)["stored"] == .bool(true))
            #expect(try result(client, #"{"id":8,"op":"kv.get","key":"A"}"#)["value"] == .integer(2))
            #expect(try result(client, #"{"id":9,"op":"kv.set","key":"B","value":3}"#)["stored"] == .bool(true))
            #expect(try result(client, #"{"id":10,"op":"kv.get","key":"B"}"#)["value"] == .integer(3))
        }
    }

    @Test("A store file with a second hard link (another container's file linked in) is not read, and says why")
    func hardLinkedStoreFile() async throws {
        try await withDaemon(containers: ["com.example.grocery", "com.example.mine"]) { daemon in
            let theirs = daemon.root + "/com.example.grocery/.ubiquity-kv"
            let mine = daemon.root + "/com.example.mine/.ubiquity-kv"
            try FS.mkdir(theirs)
            try FS.mkdir(mine)
            try Self.replica(device: "victim", #""secret":{"modified":1,"value":"their value"}"#)
                .write(toFile: theirs + "/victim.json", atomically: false, encoding: .utf8)
            try FS.link(theirs + "/victim.json", mine + "/victim.json")
            let client = try connect(daemon.socket)
            _ = try result(client, #"{"id":1,"op":"kv.synchronize","container":"com.example.mine"}"#)
            let values = try result(client, #"{"id":2,"op":"kv.all","container":"com.example.mine"}"#)["values"]
            #expect(values?["secret"] == nil, "\(String(describing: values))")
            let lines = try degraded(client)
            #expect(lines.contains { $0.contains("com.example.mine") && $0.contains("hard links") }, "\(lines)")
        }
    }

    @Test("Remote files past the store's bounds (one file's bytes and values, all files' bytes, the number of files) are skipped and reported")
    func boundedRemoteFiles() async throws {
        try await withDaemon { daemon in
            let folder = daemon.root + "/com.example.grocery/.ubiquity-kv"
            try FS.mkdir(folder)
            func plant(_ name: String, _ entries: String) throws {
                try Self.replica(device: String(name.dropLast(5)), entries).write(toFile: folder + "/" + name, atomically: false, encoding: .utf8)
            }
            // One file past 2 MiB (a 3 MiB string).
            try plant("huge.json", #""huge":{"modified":1,"value":"\#(String(repeating: "x", count: 3 << 20))"}"#)
            // One file of 300,000 values in 600 kB.
            try plant("many.json", #""many":{"modified":1,"value":[\#(Array(repeating: "0", count: 300_000).joined(separator: ","))]}"#)
            // Five files of 1.9 MB each (removals, mostly): together past 8 MiB, so the last one is not read.
            for i in 1...5 {
                let removals = (0..<47_000).map { #""r\#(i)-\#($0)":{"modified":1,"removed":true}"# }.joined(separator: ",")
                try plant("part\(i).json", #""part\#(i)":{"modified":1,"value":\#(i)},"# + removals)
            }
            // Seventy small files: only the first 64 files of the store (by name) are read.
            for i in 0..<70 { try plant(String(format: "small%02d.json", i), #""small\#(i)":{"modified":1,"value":\#(i)}"#) }
            let client = try connect(daemon.socket)
            // Reading 8 MiB of hostile JSON takes a debug build seconds, more on a busy machine.
            _ = try client.result(#"{"id":1,"op":"kv.synchronize"}"#, within: 90)
            let values = try client.result(#"{"id":2,"op":"kv.all"}"#, within: 90)["values"]
            #expect(values?["huge"] == nil && values?["many"] == nil)
            #expect(values?["part1"] != nil && values?["part4"] != nil && values?["part5"] == nil)
            // huge, many, part1-5 and small00-56 are the first 64 names.
            #expect(values?["small56"] != nil && values?["small57"] == nil && values?["small69"] == nil)
            let lines = try degraded(client)
            #expect(lines.contains { $0.contains("huge.json") && $0.contains("2097152") }, "\(lines)")
            #expect(lines.contains { $0.contains("many.json") && $0.contains("262144") })
            #expect(lines.contains { $0.contains("part5.json") && $0.contains("8388608") })
            #expect(lines.contains { $0.contains("small69.json") && $0.contains("64 files") })
        }
    }

    @Test("A state directory that others may write, or that another user owns, is refused with what to do; kv.* then fails saying so")
    func unsafeStateDirectory() async throws {
        for (mode, owner) in [(mode_t(0o777), UInt32(0)), (mode_t(0o700), Self.attacker)] {
            var template = Array("/tmp/ubqkv-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
            let directory = String(cString: made)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let state = directory + "/state"
            try FS.mkdir(state)
            #expect(chmod(state, mode) == 0 && chown(state, owner, owner) == 0)
            try await withDaemon(environment: ["STATE_DIRECTORY": state]) { daemon in
                let client = try connect(daemon.socket)
                let error = try client.request(#"{"id":1,"op":"kv.set","key":"k","value":1}"#).response["error"]
                #expect(error?["code"] == .string("kv.storageFailed"))
                let message = error?["message"]?.stringValue ?? ""
                #expect(message.contains(state) && message.contains("uid \(owner)") && message.contains(String(mode, radix: 8)), "\(message)")
                #expect(message.contains("chmod 700"), "\(message)")
                let lines = try degraded(client)
                #expect(lines.contains { $0.contains("key-value") && $0.contains(state) }, "\(lines)")
                #expect(!FileManager.default.fileExists(atPath: state + "/device-id"))
            }
        }
    }

    @Test("A state directory the daemon makes is 0700")
    func madeStateDirectory() async throws {
        try await withDaemon { daemon in
            var info = stat()
            #expect(stat(daemon.directory + "/state", &info) == 0 && info.st_mode & 0o777 == 0o700)
        }
    }
}
