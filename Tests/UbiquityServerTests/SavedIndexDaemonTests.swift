import Foundation
import Glibc
import Testing
import UbiquityTesting

/// The saved index over the real daemon: a client holding a token from before a restart — a
/// `kill -9` or a clean SIGTERM — hears exactly what changed while the daemon was down, checked
/// against the file system; a damaged saved index is discarded and the answer is marked fresh.
@Suite(.ownThreads) struct SavedIndexDaemonTests {
    typealias Since = SinceQueryDaemonTests

    /// The same root, socket and state directory as `first` (which must be stopped). Its own
    /// `socket`, `root` and `documents()` name unused paths: address it through `first`'s.
    static func restart(_ first: TestDaemon, arguments: [String]? = nil) throws -> TestDaemon {
        try TestDaemon(containers: [], arguments: arguments ?? ["--root", first.root, "--socket", first.socket],
                       environment: ["STATE_DIRECTORY": first.directory + "/state"])
    }

    /// A live client's newest clock: after the first crawl's snapshot, so only the journal has it.
    /// (Clocks handed out before that snapshot are not kept by a crash: it comes once the crawl's
    /// tag pass is done, which waits for a quiet file system.)
    /// `first`: the daemon whose root and socket a restarted `daemon` uses (``restart(_:arguments:)``);
    /// then the token is the restarted daemon's, which writes no snapshot after its crawl.
    static func liveToken(_ daemon: TestDaemon, on first: TestDaemon? = nil) throws -> (token: String, before: [String: Int64]) {
        if first == nil { try daemon.waitForLog("index saved", "first crawl") }
        let paths = first ?? daemon
        let live = try RawClient(socket: paths.socket)
        _ = try live.request(Since.hello)
        _ = try live.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","attributes":["name","size"],"batchingInterval":0}"#)
        let gathered = try Since.next(live, "query.gatheringFinished")
        _ = try paths.place("Item_4", contents: "dddd")
        let update = try Since.next(live, "query.update")
        let token = try #require(update["clock"]?.stringValue)
        return (token, Since.sizes(gathered["results"]).merging(["Item_4": 4]) { $1 })
    }

    /// Creates, renames, edits and deletes while the daemon is down.
    static func changeWhileDown(_ documents: String) throws {
        #expect(FileManager.default.createFile(atPath: documents + "/Item_5", contents: Data("eeeee".utf8)))
        #expect(rename(documents + "/Item_1", documents + "/Item_9") == 0)
        try Data("bigger now".utf8).write(to: URL(fileURLWithPath: documents + "/Item_2"))
        #expect(unlink(documents + "/Item_3") == 0)
        #expect(rename(documents + "/Item_4", documents + "/renamed-away") == 0)
    }

    /// The since answer for a token from before the restart: exactly the changes made while down,
    /// as a client watching all along would have heard them — the rename it did not see included
    /// (the crawl at start finds the same file under its new name).
    static func expectExactAnswer(_ first: TestDaemon, restarted: TestDaemon, token: String, before: [String: Int64]) throws {
        let answer = try Since.gather(first.socket, since: token)
        #expect(answer["fresh"] == nil && answer["results"] == nil, "\(answer)\n\(restarted.log)")
        #expect(answer["since"]?.stringValue == token)
        #expect(Since.names(answer["added"]) == ["Item_5"], "\(answer)")
        #expect(Since.names(answer["changed"]) == ["Item_2", "Item_9"], "\(answer)")
        #expect((answer["changed"]?.arrayValue ?? []).contains { $0["oldPath"]?.stringValue?.hasSuffix("/Documents/Item_1") == true },
                "\(answer)")
        #expect(Since.names(answer["removed"]) == ["Item_3", "Item_4"], "\(answer)")
        let disk = try Since.onDisk(first.documents())
        #expect(Since.applying(answer, to: before) == disk)
        #expect(answer["count"]?.intValue == disk.count)
        // The clock goes on in the same epoch.
        let newClock = try #require(answer["clock"]?.stringValue)
        #expect(newClock.split(separator: "-")[1] == token.split(separator: "-")[1])
    }

    static func seed(_ daemon: TestDaemon) throws {
        for (name, text) in [("Item_1", "a"), ("Item_2", "bb"), ("Item_3", "ccc"), ("other", "x")] {
            _ = try daemon.place(name, contents: text)
        }
    }

    @Test func afterKill9ATokenFromBeforeGetsExactlyTheChangesMadeWhileDown() async throws {
        let first = try TestDaemon()
        defer { first.stop(); first.cleanUp() }
        try Self.seed(first)
        let (token, before) = try Self.liveToken(first)
        first.signal(SIGKILL)
        #expect(first.waitForExit() != nil)
        #expect(!first.log.contains("index saved reason=shutdown"))
        try Self.changeWhileDown(first.documents())

        let second = try Self.restart(first)
        defer { second.stop(); second.cleanUp() }
        #expect(second.log.contains("index restored"), "\(second.log)")
        try Self.expectExactAnswer(first, restarted: second, token: token, before: before)
    }

    @Test func afterSIGTERMATokenFromBeforeGetsExactlyTheChangesMadeWhileDown() async throws {
        let first = try TestDaemon()
        defer { first.stop(); first.cleanUp() }
        try Self.seed(first)
        let (token, before) = try Self.liveToken(first)
        #expect(first.stop() == 0)
        #expect(first.log.contains("index saved"), "\(first.log)")
        try Self.changeWhileDown(first.documents())

        let second = try Self.restart(first)
        defer { second.stop(); second.cleanUp() }
        #expect(second.log.contains("index restored"), "\(second.log)")
        try Self.expectExactAnswer(first, restarted: second, token: token, before: before)
        // And a second restart, with nothing changed: nothing to tell.
        let latest = try #require(try Since.gather(first.socket)["clock"]?.stringValue)
        #expect(second.stop() == 0)
        let third = try Self.restart(first)
        defer { third.stop(); third.cleanUp() }
        let answer = try Since.gather(first.socket, since: latest)
        #expect(answer["fresh"] == nil && Since.names(answer["added"]).isEmpty && Since.names(answer["changed"]).isEmpty
                && Since.names(answer["removed"]).isEmpty, "\(answer)")
    }

    /// A restart goes on with the saved index's journal and writes no snapshot before it listens:
    /// a token the restarted daemon handed out survives its `kill -9` exactly — also with a torn
    /// record left at the journal's end, which is cut off before the next is appended — and so
    /// does every clock after two more restarts in a row (a `kill -9` with nothing changed).
    @Test func aRestartedDaemonGoesOnWithTheJournalAndSurvivesKill9() async throws {
        let first = try TestDaemon()
        defer { first.stop(); first.cleanUp() }
        try Self.seed(first)
        _ = try Since.gather(first.socket)
        #expect(first.stop() == 0)

        let second = try Self.restart(first)
        defer { second.stop(); second.cleanUp() }
        // After a clean shutdown: a new journal for the final snapshot, no snapshot written.
        #expect(second.log.contains("journal=new"), "\(second.log)")
        let (token, before) = try Self.liveToken(second, on: first)
        second.signal(SIGKILL)
        #expect(second.waitForExit() != nil)
        // No snapshot written for the restore: the only one follows the check's crawl, as after
        // a first crawl (the kill may come before or after it).
        let saves = second.log.split(separator: "\n").filter { $0.contains("index saved") }
        #expect(saves.allSatisfy { $0.contains("first crawl") } && !second.log.contains("reason=restored"), "\(second.log)")
        // A record the kill cut short: its frame says 255 bytes, 5 are there.
        let journal = try #require(FileHandle(forWritingAtPath: first.directory + "/state/index.journal"))
        journal.seekToEndOfFile()
        journal.write(Data([0xff, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
        journal.closeFile()
        try Self.changeWhileDown(first.documents())

        let third = try Self.restart(first)
        defer { third.stop(); third.cleanUp() }
        #expect(third.log.contains("journal=appended") && third.log.contains("torn_bytes=13"), "\(third.log)")
        try Self.expectExactAnswer(first, restarted: third, token: token, before: before)
        let latest = try #require(try Since.gather(first.socket)["clock"]?.stringValue)
        third.signal(SIGKILL)
        #expect(third.waitForExit() != nil)

        let fourth = try Self.restart(first)
        defer { fourth.stop(); fourth.cleanUp() }
        #expect(fourth.log.contains("journal=appended") && fourth.log.contains("torn_bytes=0"), "\(fourth.log)")
        let answer = try Since.gather(first.socket, since: latest)
        #expect(answer["fresh"] == nil && Since.names(answer["added"]).isEmpty && Since.names(answer["changed"]).isEmpty
                && Since.names(answer["removed"]).isEmpty, "\(answer)\n\(fourth.log)")
        try Self.expectExactAnswer(first, restarted: fourth, token: token, before: before)
    }

    /// A damaged, truncated or foreign saved index: logged, discarded, the daemon crawls and a
    /// token from before gets everything marked fresh (`clock.otherEpoch`) — never a crash, never
    /// a wrong difference.
    @Test(arguments: ["flipped", "truncated", "foreign", "journal-flipped"])
    func aDamagedSavedIndexIsDiscardedAndTheAnswerIsFresh(damage: String) async throws {
        let first = try TestDaemon()
        defer { first.stop(); first.cleanUp() }
        try Self.seed(first)
        let (token, _) = try Self.liveToken(first)
        first.signal(SIGKILL)
        #expect(first.waitForExit() != nil)
        let state = first.directory + "/state/"
        var snapshot = try [UInt8](Data(contentsOf: URL(fileURLWithPath: state + "index.snapshot")))
        var journal = try [UInt8](Data(contentsOf: URL(fileURLWithPath: state + "index.journal")))
        switch damage {
        case "flipped": snapshot[snapshot.count / 2] ^= 0x40
        case "truncated": snapshot.removeLast(snapshot.count / 3)
        case "foreign": snapshot = Array("SQLite format 3\0".utf8) + snapshot
        default:
            // Inside the last record's payload: the record is whole but its checksum fails, which
            // a crash cannot leave (it cuts a write short, it does not garble one): damage.
            journal[journal.count - 3] ^= 0x40
        }
        try Data(snapshot).write(to: URL(fileURLWithPath: state + "index.snapshot"))
        try Data(journal).write(to: URL(fileURLWithPath: state + "index.journal"))

        let second = try Self.restart(first)
        defer { second.stop(); second.cleanUp() }
        let answer = try Since.gather(first.socket, since: token)
        #expect(second.log.contains("saved index discarded"), "\(second.log)")
        #expect(answer["freshCode"]?.stringValue == "clock.otherEpoch", "\(answer)")
        #expect(answer["fresh"]?.boolValue == true)
        #expect(Since.names(answer["results"]) == ["Item_1", "Item_2", "Item_3", "Item_4"], "\(answer)")
    }

    /// More changes while the daemon was down than its history keeps (`history_max_changes = 10`):
    /// a token from before gets everything, fresh, `clock.pastRetention`; a newer one is exact.
    @Test func pastTheRetentionATokenFromBeforeTheRestartIsFresh() async throws {
        var template = Array("/tmp/ubqr-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let documents = base + "/com.example.grocery/Documents"
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        try """
        history_max_changes = 10

        [[containers]]
        id = "com.example.grocery"
        path = "\(base)/com.example.grocery"
        """.write(toFile: base + "/ubiquityd.toml", atomically: true, encoding: .utf8)
        let arguments = ["--config", base + "/ubiquityd.toml", "--socket", "{socket}"]
        let first = try TestDaemon(containers: [], arguments: arguments)
        defer { first.stop(); first.cleanUp() }
        let token = try #require(try Since.gather(first.socket)["clock"]?.stringValue)
        #expect(first.stop() == 0)
        for i in 1...12 { #expect(FileManager.default.createFile(atPath: documents + "/Item_\(i)", contents: nil)) }

        let second = try Self.restart(first, arguments: ["--config", base + "/ubiquityd.toml", "--socket", first.socket])
        defer { second.stop(); second.cleanUp() }
        let answer = try Since.gather(first.socket, since: token)
        #expect(answer["freshCode"]?.stringValue == "clock.pastRetention", "\(answer)\n\(second.log)")
        #expect(Since.names(answer["results"]).count == 12)
        let newer = try #require(answer["clock"]?.stringValue)
        #expect(unlink(documents + "/Item_1") == 0)
        let exact = try Since.gather(first.socket, since: newer)
        #expect(Since.names(exact["removed"]) == ["Item_1"], "\(exact)")
    }

    /// Two daemons on one state directory: the second runs, does not save (the first one's files
    /// stay intact), and says so in its status.
    @Test func aSecondDaemonOnTheSameStateDirectoryRunsWithoutSavingAndSaysSo() async throws {
        let first = try TestDaemon()
        defer { first.stop(); first.cleanUp() }
        let second = try TestDaemon(environment: ["STATE_DIRECTORY": first.directory + "/state"])
        defer { second.stop(); second.cleanUp() }
        let client = try RawClient(socket: second.socket)
        _ = try client.request(Since.hello)
        let (status, _) = try client.request(#"{"id":1,"op":"status"}"#)
        let degraded = (status["result"]?["degraded"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(degraded.contains { $0.contains("the index is not saved") && $0.contains("another ubiquityd uses this state directory") },
                "\(degraded)")
        #expect(second.stop() == 0)
        // Nothing written between the restore and the socket (a snapshot follows the check's
        // crawl, as after a first crawl; the kill may come before or after it).
        let startUp = second.log.components(separatedBy: "index restored").last?.components(separatedBy: "listening").first ?? ""
        #expect(!startUp.contains("index saved") && !second.log.contains("reason=restored"), "\(second.log)")
        #expect(first.stop() == 0)
        #expect(first.log.contains("index saved"))
    }

    /// A container taken away while the daemon was down: a token from before cannot be answered
    /// with a difference (its items may have been results for a client that may no longer read
    /// it), so the answer is everything, fresh, saying why; a token from after is exact again.
    @Test func aContainerRemovedWhileDownMakesOlderTokensFresh() async throws {
        let first = try TestDaemon(containers: ["com.example.grocery", "com.example.other"])
        defer { first.stop(); first.cleanUp() }
        _ = try first.place("Item_1", contents: "a")
        _ = try first.place("Item_7", in: "com.example.other", contents: "other")
        let gathered = try Since.gather(first.socket)
        #expect(Since.names(gathered["results"]) == ["Item_1", "Item_7"], "\(gathered)")
        let token = try #require(gathered["clock"]?.stringValue)
        #expect(first.stop() == 0)
        try FileManager.default.removeItem(atPath: first.root + "/com.example.other")
        _ = try first.place("Item_2", contents: "bb")

        let second = try Self.restart(first)
        defer { second.stop(); second.cleanUp() }
        let answer = try Since.gather(first.socket, since: token)
        #expect(answer["freshCode"]?.stringValue == "clock.containerRemoved", "\(answer)\n\(second.log)")
        #expect(Since.names(answer["results"]) == ["Item_1", "Item_2"], "\(answer)")
        let newer = try #require(answer["clock"]?.stringValue)
        _ = try first.place("Item_3", contents: "ccc")
        let exact = try Since.gather(first.socket, since: newer)
        #expect(Since.names(exact["added"]) == ["Item_3"], "\(exact)")
    }
}
