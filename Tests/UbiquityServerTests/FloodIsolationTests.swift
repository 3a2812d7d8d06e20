import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// One user flooding their own container with changes (past the kernel's event queue) does not
/// disturb another user: the other user's queries start and answer correctly meanwhile, and their
/// container is never rescanned for it. Real daemon process, real uids (needs root for setpriv).
@Suite(.ownThreads) struct FloodIsolationTests {
    static let flooder: UInt32 = 54321, other: UInt32 = 54322

    /// Creates `count` files in `directory` as `uid` (each `touch` is CREATE, ATTRIB, CLOSE_WRITE).
    static func flood(_ directory: String, as uid: UInt32, count: Int, round: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "sh", "-c",
                             "cd \"$1\" && seq -f 'r\(round)-%g' 1 \(count) | xargs touch", "flood", directory]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestDaemonError("the flood as uid \(uid) failed") }
    }

    @Test func aWriterFloodingItsOwnContainerDoesNotDisturbAnotherUsersQueries() async throws {
        var template = Array("/tmp/ubqf-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        chmod(base, 0o755)
        let flooded = base + "/com.example.flooded", calm = base + "/com.example.calm"
        for (directory, owner) in [(flooded, Self.flooder), (calm, Self.other)] {
            #expect(mkdir(directory, 0o700) == 0 && mkdir(directory + "/Documents", 0o700) == 0)
            #expect(chown(directory, owner, owner) == 0 && chown(directory + "/Documents", owner, owner) == 0)
        }
        for name in ["Item_1", "Item_2"] { #expect(FileManager.default.createFile(atPath: calm + "/Documents/" + name, contents: nil)) }
        let config = base + "/ubiquityd.toml"
        try """
        [[containers]]
        id = "com.example.flooded"
        path = "\(flooded)"
        owner = \(Self.flooder)

        [[containers]]
        id = "com.example.calm"
        path = "\(calm)"
        owner = \(Self.other)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let limit = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384

        try await withTestDaemon(containers: [], arguments: ["--config", config, "--socket", "{socket}"]) { daemon in
            chmod(daemon.directory, 0o755)
            // Root watches the calm container live: a rescan of it would show as query.resync.
            let watcher = try RawClient(socket: daemon.socket)
            _ = try watcher.request(#"{"id":0,"op":"hello","version":1}"#)
            let (started, _) = try watcher.request(#"{"id":1,"op":"query.start","container":"com.example.calm","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#)
            let live = try #require(started["result"]?["query"]?.intValue)
            var seen: [JSONValue] = []

            for round in 1...2 {
                // The daemon stopped while the flood lands: its queue overflows for certain.
                daemon.signal(SIGSTOP)
                try Self.flood(flooded + "/Documents", as: Self.flooder, count: limit / 3 + 1000, round: round)
                #expect(FileManager.default.createFile(atPath: calm + "/Documents/Item_new\(round)", contents: nil))
                daemon.signal(SIGCONT)

                // The other user starts a query on their container and gets the whole truth.
                let replies = try AuthorizationTests.exchange(as: Self.other, socket: daemon.socket, [
                    #"{"id":0,"op":"hello","version":1}"#,
                    #"{"id":1,"op":"query.start","container":"com.example.calm","predicate":"name LIKE 'Item_*'","live":false}"#,
                ])
                let gathered = try #require(replies.first { $0["event"]?.stringValue == "query.gatheringFinished" }, "\(replies)")
                let names = gathered["results"]?.arrayValue?.compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }.sorted()
                #expect(names == (["Item_1", "Item_2"] + (1...round).map { "Item_new\($0)" }).sorted(), "\(replies)")

                // The live query hears the one new item, as an update of its own.
                let deadline = Date().addingTimeInterval(15)
                var added: [String] = []
                while !added.contains("Item_new\(round)") && Date() < deadline {
                    let message = try watcher.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                    seen.append(message)
                    if message["event"]?.stringValue == "query.update", message["query"]?.intValue == live {
                        added += message["added"]?.arrayValue?.compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue } ?? []
                    }
                }
                #expect(added.contains("Item_new\(round)"), "\(seen)")
            }
            let status = try watcher.request(#"{"id":2,"op":"status"}"#)
            seen += status.events
            #expect((status.response["result"]?["overflows"]?.intValue ?? 0) >= 2, "\(status.response)")
            #expect(!seen.contains { $0["event"]?.stringValue == "query.resync" },
                    "the calm container was rescanned for the other user's flood: \(seen)")
        }
    }
}
