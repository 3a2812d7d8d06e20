import Foundation
import Testing
import UbiquityKit
import UbiquityTesting
import UbiquityPredicate
import UbiquityProtocol

/// UbiquityKit against the real `ubiquityd` process on a real socket.
@Suite(.ownThreads) struct UbiquityKitTests {
    static let grocery = "com.example.grocery"

    /// What a fresh one-shot query answers now: the truth `results` must equal.
    static func fresh(_ socket: String, _ predicate: String, sort: [MetadataQuery.SortDescriptor] = []) async throws -> [String] {
        try await UbiquityConnection.withConnection(to: socket) { connection in
            let query = MetadataQuery(connection: connection, predicateFormat: predicate)
            query.sortDescriptors = sort
            query.isLive = false
            for try await _ in try await query.start() {}
            return query.results.map(\.path)
        }
    }

    @Test func fullLifecycleKeepsResultsEqualToAFreshQuery() async throws {
        try await withDaemon { daemon in
            _ = try daemon.place("Item_1", in: Self.grocery, contents: "milk")
            _ = try daemon.place("Item_2", in: Self.grocery, contents: "bread and butter")
            _ = try daemon.place("Notes.txt", in: Self.grocery, contents: "x")
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            #expect(connection.hello.protocolVersion == WireProtocol.version)
            let predicate = "name LIKE 'Item_*'"
            let sort = [MetadataQuery.SortDescriptor(key: "size", ascending: false)]
            let query = MetadataQuery(connection: connection, predicateFormat: predicate)
            query.sortDescriptors = sort
            query.searchScopes = .documents
            query.notificationBatchingInterval = 0
            #expect(!query.isStarted)
            let recorder = NotificationRecorder.recording(try await query.start())
            #expect(query.isStarted)
            #expect(try await recorder.next() == .didStartGathering)
            let gathered = try await recorder.gathered()
            let docs = daemon.documents(Self.grocery)
            #expect(gathered.map(\.path) == [docs + "/Item_2", docs + "/Item_1"])    // larger first
            #expect(query.results.map(\.path) == (try await Self.fresh(daemon.socket, predicate, sort: sort)))
            #expect(!query.isGathering)
            #expect(query.result(at: 0)?.size == 16)    // the sort key came along
            #expect(query.result(at: query.resultCount) == nil)   // out of range is nil, not a trap
            #expect(query.result(at: 0)?.name == "Item_2")

            // Added: the biggest so far, so it must be merged at the front.
            let third = try daemon.place("Item_3", in: Self.grocery, contents: String(repeating: "e", count: 100))
            let added = try await recorder.nextUpdate()
            #expect(added.added.map(\.path) == [third])
            #expect(added.changed.isEmpty && added.removed.isEmpty)
            #expect(query.results.map(\.path) == (try await Self.fresh(daemon.socket, predicate, sort: sort)))
            #expect(query.results.first?.path == third)

            // Renamed within scope and still matching: one changed with the old path.
            let fourth = docs + "/Item_4"
            #expect(rename(third, fourth) == 0)
            let renamed = try await recorder.nextUpdate()
            #expect(renamed.changed.map(\.path) == [fourth])
            #expect(renamed.changed.first?.oldPath == third)
            #expect(renamed.added.isEmpty && renamed.removed.isEmpty)
            #expect(query.results.map(\.path) == (try await Self.fresh(daemon.socket, predicate, sort: sort)))

            // Deleted.
            #expect(unlink(fourth) == 0)
            let removed = try await recorder.nextUpdate()
            #expect(removed.removed.map(\.path) == [fourth])
            #expect(query.results.map(\.path) == (try await Self.fresh(daemon.socket, predicate, sort: sort)))
            #expect(query.resultCount == 2)

            await query.stop()
            #expect(query.isStopped)
            await connection.close()
        }
    }

    /// `café.txt` precomposed and decomposed are two items side by side (equal as strings): when
    /// one goes, the other stays in the live results.
    @Test func aRemovedItemTakesNoCanonicallyEqualSiblingOutOfTheResults() async throws {
        try await withDaemon { daemon in
            let composed = try daemon.place("caf\u{E9}.txt", in: Self.grocery, contents: "one")
            let decomposed = try daemon.place("cafe\u{301}.txt", in: Self.grocery, contents: "two")
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE '*.txt'")
            query.searchScopes = .documents
            query.notificationBatchingInterval = 0
            let recorder = NotificationRecorder.recording(try await query.start())
            #expect(try await recorder.next() == .didStartGathering)
            #expect(try await recorder.gathered().count == 2)
            #expect(unlink(composed) == 0)
            let removed = try await recorder.nextUpdate()
            #expect(removed.removed.map { Array($0.path.utf8) } == [Array(composed.utf8)])
            #expect(query.results.map { Array($0.path.utf8) } == [Array(decomposed.utf8)])
            await query.stop()
            await connection.close()
        }
    }

    @Test func changesWhileDisabledArriveAsOneUpdateAfterEnable() async throws {
        try await withDaemon { daemon in
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            query.notificationBatchingInterval = 0
            let recorder = NotificationRecorder.recording(try await query.start())
            #expect(try await recorder.gathered().isEmpty)
            try await query.disableUpdates()

            // A second, independent subscriber proves the daemon has seen both files.
            let observer = MetadataQuery(connection: try await UbiquityConnection.connect(to: daemon.socket),
                                         predicateFormat: "name LIKE 'Item_*'")
            observer.notificationBatchingInterval = 0
            let watching = NotificationRecorder.recording(try await observer.start())
            _ = try await watching.gathered()
            let a = try daemon.place("Item_A", in: Self.grocery, contents: "a")
            let b = try daemon.place("Item_B", in: Self.grocery, contents: "b")
            var seen = Set<String>()
            while seen.count < 2 { seen.formUnion(try await watching.nextUpdate().added.map(\.path)) }
            #expect(seen == [a, b])
            #expect(await recorder.unread.filter { if case .didUpdate = $0 { true } else { false } }.isEmpty)
            #expect(query.resultCount == 0)

            try await query.enableUpdates()
            let update = try await recorder.nextUpdate()
            #expect(Set(update.added.map(\.path)) == [a, b])
            #expect(query.results.map(\.path) == [a, b])
            await query.stop()
            await observer.stop()
        }
    }

    @Test func stoppedQueryReceivesNothingMore() async throws {
        try await withDaemon { daemon in
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            query.notificationBatchingInterval = 0
            let recorder = NotificationRecorder.recording(try await query.start())
            _ = try await recorder.gathered()
            await query.stop()

            let observer = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            observer.notificationBatchingInterval = 0
            let watching = NotificationRecorder.recording(try await observer.start())
            _ = try await watching.gathered()
            let path = try daemon.place("Item_X", in: Self.grocery, contents: "x")
            #expect(try await watching.nextUpdate().added.map(\.path) == [path])
            #expect(try await recorder.next() == nil)       // the stream ended, no update
            #expect(query.resultCount == 0)
            #expect(query.isStopped)
        }
    }

    @Test func severalQueriesShareOneConnection() async throws {
        try await withDaemon { daemon in
            _ = try daemon.place("Item_1", in: Self.grocery, contents: "1")
            _ = try daemon.place("Photo.png", in: Self.grocery, contents: "png")
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let items = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
            let pngs = MetadataQuery(connection: connection, predicateFormat: "name ENDSWITH %@", arguments: [.string(".png")])
            items.notificationBatchingInterval = 0
            pngs.notificationBatchingInterval = 0
            let r1 = NotificationRecorder.recording(try await items.start())
            let r2 = NotificationRecorder.recording(try await pngs.start())
            #expect(try await r1.gathered().map(\.name) == ["Item_1"])
            #expect(try await r2.gathered().map(\.name) == ["Photo.png"])
            #expect(items.queryID != pngs.queryID)
            let second = try daemon.place("Other.png", in: Self.grocery, contents: "png")
            #expect(try await r2.nextUpdate().added.map(\.path) == [second])
            #expect(items.resultCount == 1)
            #expect(pngs.results.map(\.name) == ["Other.png", "Photo.png"])
        }
    }

    @Test func twentyConcurrentClientsEachGetTheFullAnswer() async throws {
        try await withDaemon { daemon in
            for i in 0..<5 { _ = try daemon.place("Item_\(i)", in: Self.grocery, contents: "\(i)") }
            let socket = daemon.socket
            let counts = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await UbiquityConnection.withConnection(to: socket) { connection in
                            let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
                            query.isLive = false
                            for try await _ in try await query.start() {}
                            return query.results.map(\.name)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts.count == 20)
            #expect(counts.allSatisfy { $0 == (0..<5).map { "Item_\($0)" } })
        }
    }

    @Test func predicateErrorIsAProtocolErrorWithItsOffset() async throws {
        try await withDaemon { daemon in
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE )")
            do {
                _ = try await query.start()
                Issue.record("start() accepted a bad predicate")
            } catch let error as ProtocolError {
                #expect(error.code == ProtocolError.Code(MetadataPredicateError.Code.syntax))
                #expect(error.details["offset"] == .integer(10))
                #expect(error.message.contains("expected a value after LIKE"))
            }
            #expect(query.isStopped)
            // The connection is still usable.
            #expect(try await connection.containers().map(\.id) == [Self.grocery])
        }
    }

    @Test func containerURLCreatesDocuments() async throws {
        try await withDaemon(containers: ["com.example.notes"]) { daemon in
            let documents = daemon.documents("com.example.notes")
            try FileManager.default.removeItem(atPath: documents)
            let url = try await UbiquityContainer.url(for: "com.example.notes", socketPath: daemon.socket)
            #expect(url.path == daemon.root + "/com.example.notes")
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: documents, isDirectory: &isDirectory) && isDirectory.boolValue)
            let first = try await UbiquityContainer.url(for: nil, socketPath: daemon.socket)
            #expect(first == url)
            await #expect(throws: ProtocolError.self) {
                _ = try await UbiquityContainer.url(for: "com.example.missing", socketPath: daemon.socket)
            }
        }
    }

    @Test func statusReportsContainersAndItems() async throws {
        try await withDaemon { daemon in
            _ = try daemon.place("Item_1", in: Self.grocery, contents: "1")
            let status = try await UbiquityContainer.status(socketPath: daemon.socket)
            #expect(status.pid == Int(daemon.pid))
            #expect(status.socket == daemon.socket)
            #expect(status.containers.map(\.id) == [Self.grocery])
        }
    }

    @Test func noDaemonIsDaemonNotRunning() async throws {
        let path = "/tmp/ubq-missing-\(getpid()).sock"
        do {
            _ = try await UbiquityConnection.connect(to: path)
            Issue.record("connected to nothing")
        } catch let error as UbiquityKitError {
            #expect(error == .daemonNotRunning(socketPath: path))
            #expect(error.description.contains("ubiquityd is not running (no socket at \(path))"))
        }
    }

    @Test func daemonGoingAwayEndsTheStreamWithAnError() async throws {
        let daemon = try TestDaemon(containers: [Self.grocery])
        defer { daemon.stop(); daemon.cleanUp() }
        let connection = try await UbiquityConnection.connect(to: daemon.socket)
        let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
        let recorder = NotificationRecorder.recording(try await query.start())
        _ = try await recorder.gathered()
        await daemon.terminate()    // not stop(): it would hold a thread of the shared pool until the exit
        await #expect(throws: UbiquityKitError.self) {
            while try await recorder.next() != nil {}
        }
        #expect(query.isStopped)
        await #expect(throws: UbiquityKitError.self) { try await connection.status() }
    }
}

/// `MetadataQuery.start(resumingFrom:)` against the real daemon: a query on a new connection
/// picks up from an earlier query's snapshot, and its results equal a fresh query's.
@Suite(.ownThreads) struct MetadataQueryResumeTests {
    @Test func aQueryResumedFromASnapshotHearsOnlyWhatChangedAndEndsWithTheTruth() async throws {
        try await withDaemon { daemon in
            let grocery = UbiquityKitTests.grocery
            for (name, text) in [("Item_1", "a"), ("Item_2", "bb"), ("Item_3", "ccc")] {
                _ = try daemon.place(name, in: grocery, contents: text)
            }
            let predicate = "name LIKE 'Item_*'"
            let sort = [MetadataQuery.SortDescriptor(key: "size", ascending: false)]
            let point = try await UbiquityConnection.withConnection(to: daemon.socket) { connection in
                let query = MetadataQuery(connection: connection, predicateFormat: predicate)
                query.sortDescriptors = sort
                query.isLive = false
                for try await _ in try await query.start() {}
                #expect(query.clockOfLastNotification == query.resumePoint?.clock)
                return try #require(query.resumePoint)
            }
            #expect(point.results.count == 3)
            let docs = daemon.documents(grocery)
            #expect(rename(docs + "/Item_1", docs + "/Item_9") == 0)
            #expect(unlink(docs + "/Item_2") == 0)
            _ = try daemon.place("Item_4", in: grocery, contents: "dddd")

            try await UbiquityConnection.withConnection(to: daemon.socket) { connection in
                let query = MetadataQuery(connection: connection, predicateFormat: predicate)
                query.sortDescriptors = sort
                query.isLive = false
                var notifications: [MetadataQuery.Notification] = []
                for try await notification in try await query.start(resumingFrom: point) { notifications.append(notification) }
                let resumed = notifications.compactMap { notification -> ([String], [String], [String])? in
                    guard case .didResume(let added, let changed, let removed) = notification else { return nil }
                    return (added.map(\.name), changed.map(\.name), removed.map(\.name))
                }
                #expect(resumed.count == 1, "\(notifications)")
                #expect(resumed.first?.0 == ["Item_4"] && resumed.first?.1 == ["Item_9"] && resumed.first?.2 == ["Item_2"])
                #expect(!notifications.contains { if case .didFinishGathering = $0 { true } else { false } })
                #expect(query.results.map(\.path) == (try await UbiquityKitTests.fresh(daemon.socket, predicate, sort: sort)))
                #expect(query.resumePoint?.clock != point.clock)
            }

            // A resume point the daemon cannot answer: told why, then everything.
            let foreign = MetadataQuery.ResumePoint(clock: "c1-0000000000000001-1", results: point.results)
            try await UbiquityConnection.withConnection(to: daemon.socket) { connection in
                let query = MetadataQuery(connection: connection, predicateFormat: predicate)
                query.isLive = false
                var notifications: [MetadataQuery.Notification] = []
                for try await notification in try await query.start(resumingFrom: foreign) { notifications.append(notification) }
                let refused = notifications.firstIndex { if case .couldNotResume(code: "clock.otherEpoch", _) = $0 { true } else { false } }
                let gathered = notifications.firstIndex { if case .didFinishGathering = $0 { true } else { false } }
                #expect(refused != nil && gathered != nil && refused! < gathered!, "\(notifications)")
                #expect(query.results.map(\.name).sorted() == ["Item_3", "Item_4", "Item_9"])
            }
        }
    }
}
