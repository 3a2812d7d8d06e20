import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityKit
import UbiquityTesting

/// `"freshness":"saved"` over the real daemon, real files and a real socket: right after a restart
/// a query is answered at once from the saved index, marked `"verified":false`; what the daemon's
/// check of the files finds arrives as ordinary updates, then `query.verified`. The default answer
/// stays exact.
@Suite(.ownThreads) struct SavedFreshnessDaemonTests {
    typealias Since = SinceQueryDaemonTests
    typealias Saved = SavedIndexDaemonTests

    static func start(_ client: RawClient, freshness: String?) throws {
        let field = freshness.map { #","freshness":"\#($0)""# } ?? ""
        let (started, _) = try client.request(
            #"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","attributes":["name","size"],"batchingInterval":0\#(field)}"#)
        #expect(started["error"] == nil, "\(started)")
    }

    /// A daemon stopped with `Item_1`…`Item_4` saved (returned with their sizes), then changed
    /// while down, `bulk` new entries among the changes, so that the check at the next start
    /// outlasts a client's first request.
    static func stoppedAndChanged(_ first: TestDaemon, bulk count: Int) throws -> [String: Int64] {
        try Saved.seed(first)
        let (_, saved) = try Saved.liveToken(first)
        #expect(first.stop() == 0)
        try Saved.changeWhileDown(first.documents())
        try Self.fillBulk(in: first.documents(), count)
        return saved
    }

    /// `documents/bulk` with `count` empty files: entries enough that loading or checking the
    /// saved index outlasts a client's request.
    static func fillBulk(in documents: String, _ count: Int) throws {
        let bulk = documents + "/bulk"
        try FileManager.default.createDirectory(atPath: bulk, withIntermediateDirectories: false)
        for i in 0..<count { #expect(FileManager.default.createFile(atPath: bulk + "/f_\(i)", contents: nil)) }
    }

    /// The new entries of each try: that the check outlasts the first request is this test's
    /// premise, not what it tests, and a loaded machine can slow the client more than the check
    /// (seen with 20,000). When the first answer already holds what the check found, the test
    /// starts over with a longer check; never more than these.
    static let bulkPerTry = [20_000, 80_000, 240_000]

    /// Runs `body` on a daemon restarted over changes, with ever more new entries until `body`
    /// says the check was still pending when the first answer came (true); false after the last
    /// try, whose outcome `body` has recorded.
    static func withTheCheckPending(_ body: (_ first: TestDaemon, _ second: TestDaemon, _ saved: [String: Int64],
                                             _ lastTry: Bool) async throws -> Bool) async throws {
        for (n, bulk) in bulkPerTry.enumerated() {
            let first = try TestDaemon()
            defer { first.stop(); first.cleanUp() }
            let saved = try Self.stoppedAndChanged(first, bulk: bulk)
            let second = try Self.restarted(first)
            defer { second.stop(); second.cleanUp() }
            if try await body(first, second, saved, n == bulkPerTry.count - 1) { return }
        }
    }

    /// The same root and state as `first`, its own socket; waits for the socket only (readiness
    /// comes after the check).
    static func restarted(_ first: TestDaemon) throws -> TestDaemon {
        try TestDaemon(containers: [], arguments: ["--root", first.root, "--socket", "{socket}"],
                       environment: ["STATE_DIRECTORY": first.directory + "/state",
                                     "NOTIFY_SOCKET": first.directory + "/nobody-listens.sock"])
    }

    @Test func afterARestartTheSavedAnswerComesAtOnceThenTheCheckAsUpdatesThenVerified() async throws {
        try await Self.withTheCheckPending { first, second, saved, lastTry in
            let client = try RawClient(socket: second.socket)
            _ = try client.request(Since.hello)
            try Self.start(client, freshness: "saved")
            let gathered = try Since.next(client, "query.gatheringFinished")
            // The check already applied (marked or not): its premise not met, try a longer one.
            if (gathered["verified"] == nil || Since.sizes(gathered["results"]) != saved) && !lastTry { return false }
            #expect(gathered["verified"]?.boolValue == false, "the answer came after the check: \(gathered)\n\(second.log)")
            #expect(Since.sizes(gathered["results"]) == saved, "not the saved index's answer: \(gathered)")

            // An exact query started during the check waits for it.
            let exact = try RawClient(socket: second.socket)
            _ = try exact.request(Since.hello)
            try Self.start(exact, freshness: nil)

            // The check's differences, as updates, then verified.
            var view = saved
            var updates = 0
            while true {
                let message = try client.readJSON(within: 60)
                let event = message["event"]?.stringValue
                if event == "query.verified" { break }
                // Notices (the container seen again by the check) change nothing here.
                guard event == "query.update" else { continue }
                view = Since.applying(message, to: view)
                updates += 1
            }
            let disk = try Since.onDisk(first.documents())
            #expect(updates > 0)
            #expect(view == disk, "saved \(saved), after the updates \(view), on disk \(disk)")

            let exactAnswer = try Since.next(exact, "query.gatheringFinished")
            #expect(exactAnswer["verified"] == nil && Since.sizes(exactAnswer["results"]) == disk, "\(exactAnswer)")
            // Once checked, a query asking for the saved answer gets the exact one, unmarked.
            let later = try RawClient(socket: second.socket)
            _ = try later.request(Since.hello)
            try Self.start(later, freshness: "saved")
            let laterAnswer = try Since.next(later, "query.gatheringFinished")
            #expect(laterAnswer["verified"] == nil && Since.sizes(laterAnswer["results"]) == disk, "\(laterAnswer)")
            return true
        }
    }

    /// UbiquityKit: `freshness = .saved` hears `unverified` before the saved results, the check's
    /// corrections as updates, then `didVerify`; its results are then the files on disk.
    @Test func ubiquityKitTellsAnUnverifiedAnswerAndItsVerification() async throws {
        try await Self.withTheCheckPending { first, second, saved, lastTry in
            let (notes, results) = try await UbiquityConnection.withConnection(to: second.socket) { connection in
                let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
                query.attributes = ["name", "size"]
                query.notificationBatchingInterval = 0
                query.freshness = .saved
                var notes: [MetadataQuery.Notification] = []
                for try await note in try await query.start() {
                    notes.append(note)
                    if note == .didVerify { break }
                    // An answer that came after the check is exact: no didVerify follows it (the
                    // premise failed; the test tries again, or fails on its last try below).
                    if case .didFinishGathering = note, !notes.contains(.unverified) { break }
                }
                return (notes, query.results)
            }
            func sizes(_ items: [MetadataItem]) -> [String: Int64] {
                Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.size ?? -1) })
            }
            let unverified = notes.firstIndex(of: .unverified)
            if let unverified, case .didFinishGathering(let early)? = notes.dropFirst(unverified + 1).first,
               sizes(early) != saved, !lastTry {
                return false
            }
            if unverified == nil && !lastTry { return false }
            guard let unverified else {
                Issue.record("no unverified answer: \(notes)")
                return true
            }
            guard case .didFinishGathering(let gathered)? = notes.dropFirst(unverified + 1).first else {
                Issue.record("no didFinishGathering right after unverified: \(notes)")
                return true
            }
            #expect(sizes(gathered) == saved)
            #expect(notes.contains { if case .didUpdate = $0 { true } else { false } }, "\(notes)")
            #expect(notes.last == .didVerify)
            #expect(sizes(results) == (try Since.onDisk(first.documents())))
            return true
        }
    }

    /// A live query asking for freshness "saved", open when the daemon stops, is remembered with
    /// the final snapshot (`index.answers`); the next start answers the same query from memory
    /// while it is still loading the index — its journal says the query started before the index
    /// was restored — then the check's differences come as updates and `query.verified` follows,
    /// leaving the files on disk. The file of answers is taken: read once, then removed.
    @Test func aQueryLiveAtTheStopIsAnsweredFromMemoryWhileTheIndexLoads() async throws {
        for (n, bulk) in Self.bulkPerTry.enumerated() {
            let lastTry = n == Self.bulkPerTry.count - 1
            let first = try TestDaemon()
            defer { first.stop(); first.cleanUp() }
            try Saved.seed(first)
            _ = try first.place("Item_4", contents: "dddd")
            // Entries enough that loading the index outlasts a client's first request.
            try Self.fillBulk(in: first.documents(), bulk)
            let watching = try RawClient(socket: first.socket)
            _ = try watching.request(Since.hello)
            try Self.start(watching, freshness: "saved")
            let saved = Since.sizes(try Since.next(watching, "query.gatheringFinished", within: 120)["results"])
            #expect(saved.count == 4)
            #expect(first.stop() == 0)
            let answers = first.directory + "/state/index.answers"
            #expect(FileManager.default.fileExists(atPath: answers), "\(first.log)")
            try Saved.changeWhileDown(first.documents())

            let second = try Self.restarted(first)
            defer { second.stop(); second.cleanUp() }
            let client = try RawClient(socket: second.socket)
            _ = try client.request(Since.hello)
            try Self.start(client, freshness: "saved")
            let gathered = try Since.next(client, "query.gatheringFinished", within: 120)
            try second.waitForLog("index restored")
            let log = second.log
            let started = try #require(log.range(of: "query started")), restored = try #require(log.range(of: "index restored"))
            if started.lowerBound > restored.lowerBound && !lastTry { continue }
            #expect(started.lowerBound < restored.lowerBound, "not answered before the index loaded:\n\(log)")
            #expect(log.contains("remembered answers read answers=1"), "\(log)")
            #expect(gathered["verified"]?.boolValue == false, "\(gathered)")
            #expect(Since.sizes(gathered["results"]) == saved, "not the remembered answer: \(gathered)")
            var view = saved
            while true {
                let message = try client.readJSON(within: 120)
                let event = message["event"]?.stringValue
                if event == "query.verified" { break }
                // The index loaded is the one the answer was taken with: it gives the same answer again.
                #expect(event != "query.reset", "\(message)")
                if event == "query.update" { view = Since.applying(message, to: view) }
            }
            #expect(view == (try Since.onDisk(first.documents())), "\(second.log)")
            #expect(!FileManager.default.fileExists(atPath: answers))
            return
        }
    }
}
