import Foundation
import Glibc
import Testing
@testable import UbiquityKit
import UbiquityProtocol
import UbiquityTesting

/// UbiquityKit facing a slow reader, a hostile socket and a racing reader: bounded memory, no
/// bytes to an untrusted process, no trap.
@Suite(.ownThreads) struct UbiquityKitHardeningTests {
    static let grocery = "com.example.grocery"

    // MARK: The notification buffer (pure)

    static func update(_ path: String) -> MetadataQuery.Notification {
        .didUpdate(added: [MetadataItem(path: path, attributes: [:])], changed: [], removed: [])
    }

    @Test func waitingUpdatesPastTheLimitBecomeOneResetWithTheCurrentResults() {
        var buffer = NotificationBuffer(limit: 4)
        let current = [MetadataItem(path: "/now", attributes: [:])]
        buffer.append(.didStartGathering) { current }
        buffer.append(.didFinishGathering(results: [])) { current }
        buffer.append(Self.update("/a")) { current }
        buffer.append(.resync(container: "c", reason: "overflow", changes: 1)) { current }
        #expect(buffer.pending.count == 4)
        buffer.append(Self.update("/b")) { current }
        #expect(buffer.pending == [.didStartGathering, .didFinishGathering(results: []),
                                   .resync(container: "c", reason: "overflow", changes: 1), .didReset(results: current)])
        // A thousand more updates never grow it past the limit, and the reset stays last.
        for i in 0..<1000 { buffer.append(Self.update("/\(i)")) { current } }
        #expect(buffer.pending.count <= 4)
        #expect(buffer.pending.last == .didReset(results: current))
        #expect(buffer.pending.prefix(2) == [.didStartGathering, .didFinishGathering(results: [])])
    }

    @Test func noticesAloneAreCappedOldestFirstAndGatheringIsNeverDropped() {
        var buffer = NotificationBuffer(limit: 3)
        buffer.append(.didFinishGathering(results: [])) { [] }
        for i in 0..<10 { buffer.append(.containerAvailable("c\(i)")) { [] } }
        #expect(buffer.pending == [.didFinishGathering(results: []), .containerAvailable("c8"), .containerAvailable("c9")])
        #expect(buffer.next() == .didFinishGathering(results: []))
        #expect(buffer.next() == .containerAvailable("c8"))
    }

    // MARK: The real daemon

    /// One query is read, the other is not: the unread one keeps at most the limit of
    /// notifications however many updates arrive, and what it finally reads ends with results
    /// equal to a fresh query.
    @Test func aQueryNobodyReadsHoldsABoundedNumberOfNotifications() async throws {
        try await withDaemon { daemon in
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let ignored = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            ignored.notificationBatchingInterval = 0
            let ignoredStream = try await ignored.start()
            let pacer = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            pacer.notificationBatchingInterval = 0
            let paced = NotificationRecorder.recording(try await pacer.start())
            _ = try await paced.gathered()
            // Each creation is its own update: wait for the pacer to see it before the next.
            let creations = MetadataQuery.maxWaitingNotifications + 50
            for i in 0..<creations {
                _ = try daemon.place("Item_\(i)", in: Self.grocery, contents: "")
                var seen = false
                while !seen {
                    let update = try await paced.nextUpdate()
                    seen = update.added.contains { $0.name == "Item_\(i)" }
                }
            }
            // The ignored query received the same updates: the daemon writes the updates both
            // queries owe for a change together (one pull of the connection's queries, one write),
            // and the connection applies what it reads in order. So once a request sent now is
            // answered, the ignored query has applied every update the pacer has seen.
            _ = try await connection.send(Status())
            #expect(ignored.resultCount == creations)
            await ignored.stop()
            var notifications: [MetadataQuery.Notification] = []
            for try await notification in ignoredStream { notifications.append(notification) }
            #expect(notifications.count <= MetadataQuery.maxWaitingNotifications)
            #expect(notifications.first == .didStartGathering)
            // Replaying what was read from the last reset on gives exactly what a fresh query finds.
            guard let lastReset = notifications.lastIndex(where: { if case .didReset = $0 { true } else { false } }),
                  case .didReset(let results) = notifications[lastReset] else {
                Issue.record("no reset among \(notifications.count) notifications")
                return
            }
            var replayed = Set(results.map(\.path))
            for case .didUpdate(let added, let changed, let removed) in notifications[(lastReset + 1)...] {
                replayed.formUnion(added.map(\.path))
                replayed.subtract(removed.map(\.path))
                #expect(changed.isEmpty)
            }
            #expect(replayed == Set(try await UbiquityKitTests.fresh(daemon.socket, "name LIKE 'Item_*'")))
            await pacer.stop()
            await connection.close()
        }
    }

    /// A socket bound by another user (as under /tmp when XDG_RUNTIME_DIR is unset): the client
    /// refuses it before sending a byte. Needs root to run the listener as uid 54321.
    @Test func aSocketOfAnotherUserIsRefusedBeforeAnythingIsSent() async throws {
        var template = Array("/tmp/ubqk-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o777)
        let socket = directory + "/s.sock", received = directory + "/received"
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        // `-d -d`: socat says "listening on" once it listens.
        listener.arguments = ["--reuid=54321", "--regid=54321", "--clear-groups",
                              "socat", "-d", "-d", "-u", "UNIX-LISTEN:\(socket)", "CREATE:\(received)"]
        let notices = Pipe()
        listener.standardError = notices
        let listenerExit = ProcessExit.of(listener)
        try listener.run()
        defer { if listener.isRunning { listener.terminate() } }   // no unbounded wait: the body waits with a deadline
        // Listening, not merely bound: socat binds the path before it listens, and a client in
        // between is refused ("not running"), after which socat would wait for it forever.
        let said = LineReader(notices.fileHandleForReading)
        var listening = false
        while !listening, let line = said.next(within: 10) { listening = line.contains("listening on") }
        try #require(listening, "socat did not say it listens on \(socket) within 10 s")
        #expect(UnixSocket.isListening(socket))

        await #expect(throws: UbiquityKitError.untrustedServer(socketPath: socket, uid: 54321)) {
            // Within a deadline: a connection that neither fails nor succeeds is no error, and fails the expectation.
            _ = try await firstWithin(10) { try await UbiquityConnection.connect(to: socket) }
        }
        guard try await firstWithin(10, { await listenerExit.wait() }) != nil else { throw TestDaemonError("socat did not see the client close within 10 s") }
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: received))) ?? Data()
        #expect(bytes.isEmpty, "the client sent \(bytes.count) bytes to an untrusted server")
    }

    @Test func aLineLongerThanTheClientsLimitEndsTheConnectionWithAClearError() async throws {
        try await withDaemon { daemon in
            for i in 0..<50 { _ = try daemon.place("Item_\(i)", in: Self.grocery, contents: "") }
            let connection = try await UbiquityConnection.connect(to: daemon.socket, maxLineBytes: 2_000)
            let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            query.isLive = false
            var seen: [MetadataQuery.Notification] = []
            await #expect(throws: UbiquityKitError.responseTooLarge(limit: 2_000)) {
                for try await notification in try await query.start() { seen.append(notification) }
            }
            #expect(seen.allSatisfy { if case .didFinishGathering = $0 { false } else { true } }, "\(seen)")
            #expect(UbiquityKitError.responseTooLarge(limit: 2_000).description.contains("2000 bytes"))
        }
    }

    /// The wait above tells a bound socket from a listening one (a bound one refuses clients),
    /// while some socket on the machine has a name that is not UTF-8 (CI once had one).
    @Test func aBoundSocketIsNotListeningUntilItListens() throws {
        var template = Array("/tmp/ubql-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let undecodable = try UnixSocket.listening(abstract: Array("ubql-".utf8) + [0xFF, 0xFE] + Array(String(getpid()).utf8))
        defer { close(undecodable) }
        let bound = try UnixSocket.bound(to: directory + "/bound.sock", listening: false)
        defer { close(bound) }
        let listening = try UnixSocket.bound(to: directory + "/listening.sock", listening: true)
        defer { close(listening) }
        #expect(!UnixSocket.isListening(directory + "/bound.sock"))
        #expect(UnixSocket.isListening(directory + "/listening.sock"))
        #expect(!UnixSocket.isListening(directory + "/absent.sock"))
    }

    /// A server that answers `hello`, then closes the connection in the middle of its next line:
    /// the request waiting for it fails with a sentence saying so, and how much of the line came.
    @Test func aLineCutShortByTheServerClosingFailsTheWaitingRequestClearly() async throws {
        let cut = #"{"id":2,"result":{"contai"#
        // Answers the first request (hello), cuts the second short.
        let server = try ScriptedServer(replies: [ScriptedServer.hello, cut])
        let connection = try await UbiquityConnection.connect(to: server.path, helloTimeout: .seconds(10))
        let reason = "ubiquityd closed the connection in the middle of a line (\(cut.utf8.count) bytes without their end)"
        await #expect(throws: UbiquityKitError.disconnected(reason: reason)) {
            try await connection.send(Status())
        }
    }

    /// A socket that accepts connections but never answers (a socket-activated daemon that failed
    /// to start): `connect` gives up with a sentence instead of waiting forever.
    @Test func aSocketThatNeverAnswersHelloFailsWithinTheTimeout() async throws {
        var template = Array("/tmp/ubqh-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/silent.sock"
        let listener = try SilentListener(path: path)      // the kernel accepts; nobody ever reads
        defer { withExtendedLifetime(listener) {} }
        // Raced against a deadline of the test's own, so a client that hangs fails instead of
        // hanging. A backstop, not a measure: with the whole suite started at once on 2 cores, a
        // task that is ready can wait minutes for a thread of the shared pool (a one-line test
        // reports 321 s, this one 302 s for its second of work), so a backstop of 30 s could
        // fire before the 1 s deadline under test has had its turn.
        let started = ContinuousClock.now
        let outcome = try await firstWithin(600) { () -> String in
            do {
                _ = try await UbiquityConnection.connect(to: path, helloTimeout: .seconds(1))
                return "connected"
            } catch {
                return "\(error)"
            }
        } ?? "still waiting after 600 s"
        #expect(outcome == UbiquityKitError.noAnswer(socketPath: path, seconds: 1).description,
                "after \(ContinuousClock.now - started)")
        #expect(UbiquityKitError.noAnswer(socketPath: path, seconds: 1).isUnreachable)
        #expect(UbiquityKitError.noAnswer(socketPath: path, seconds: 1).description.contains("did not answer within 1 s"))
    }
}
