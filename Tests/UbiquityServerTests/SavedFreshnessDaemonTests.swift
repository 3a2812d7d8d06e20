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
    /// while down, 20,000 new entries among the changes: enough that the check at the next start
    /// outlasts a client's first request.
    static func stoppedAndChanged(_ first: TestDaemon) throws -> [String: Int64] {
        try Saved.seed(first)
        let (_, saved) = try Saved.liveToken(first)
        #expect(first.stop() == 0)
        try Saved.changeWhileDown(first.documents())
        let bulk = first.documents() + "/bulk"
        try FileManager.default.createDirectory(atPath: bulk, withIntermediateDirectories: false)
        for i in 0..<20_000 { #expect(FileManager.default.createFile(atPath: bulk + "/f_\(i)", contents: nil)) }
        return saved
    }

    /// The same root and state as `first`, its own socket; waits for the socket only (readiness
    /// comes after the check).
    static func restarted(_ first: TestDaemon) throws -> TestDaemon {
        try TestDaemon(containers: [], arguments: ["--root", first.root, "--socket", "{socket}"],
                       environment: ["STATE_DIRECTORY": first.directory + "/state",
                                     "NOTIFY_SOCKET": first.directory + "/nobody-listens.sock"])
    }

    @Test func afterARestartTheSavedAnswerComesAtOnceThenTheCheckAsUpdatesThenVerified() async throws {
        let first = try TestDaemon()
        defer { first.stop(); first.cleanUp() }
        let saved = try Self.stoppedAndChanged(first)
        let second = try Self.restarted(first)
        defer { second.stop(); second.cleanUp() }
        let client = try RawClient(socket: second.socket)
        _ = try client.request(Since.hello)
        try Self.start(client, freshness: "saved")
        let gathered = try Since.next(client, "query.gatheringFinished")
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
    }

    /// UbiquityKit: `freshness = .saved` hears `unverified` before the saved results, the check's
    /// corrections as updates, then `didVerify`; its results are then the files on disk.
    @Test func ubiquityKitTellsAnUnverifiedAnswerAndItsVerification() async throws {
        let first = try TestDaemon()
        defer { first.stop(); first.cleanUp() }
        let saved = try Self.stoppedAndChanged(first)
        let second = try Self.restarted(first)
        defer { second.stop(); second.cleanUp() }
        let (notes, results) = try await UbiquityConnection.withConnection(to: second.socket) { connection in
            let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            query.attributes = ["name", "size"]
            query.notificationBatchingInterval = 0
            query.freshness = .saved
            var notes: [MetadataQuery.Notification] = []
            for try await note in try await query.start() {
                notes.append(note)
                if note == .didVerify { break }
            }
            return (notes, query.results)
        }
        func sizes(_ items: [MetadataItem]) -> [String: Int64] {
            Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.size ?? -1) })
        }
        let unverified = try #require(notes.firstIndex(of: .unverified), "\(notes)")
        guard case .didFinishGathering(let gathered)? = notes.dropFirst(unverified + 1).first else {
            Issue.record("no didFinishGathering right after unverified: \(notes)")
            return
        }
        #expect(sizes(gathered) == saved)
        #expect(notes.contains { if case .didUpdate = $0 { true } else { false } }, "\(notes)")
        #expect(notes.last == .didVerify)
        #expect(sizes(results) == (try Since.onDisk(first.documents())))
    }
}
