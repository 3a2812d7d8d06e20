import Foundation
import Synchronization
import UbiquityTesting
import Testing
import UbiquityKit
import UbiquityWatch

/// Tags travel with the watcher's changes: a live query on tags hears a tag added, changed and
/// removed, and a query that shows tags sees the new list, from the real daemon and real xattrs.
@Suite(.ownThreads) struct TagQueryTests {
    static let grocery = "com.example.grocery"

    @Test func aLiveQueryOnTagsHearsTagsAddedChangedAndRemoved() async throws {
        try await withDaemon { daemon in
            let file = try daemon.place("Plan.txt", in: Self.grocery, contents: "x")
            _ = try daemon.place("Other.txt", in: Self.grocery, contents: "y")
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let urgent = MetadataQuery(connection: connection, predicateFormat: "kMDItemUserTags == 'urgent'")
            urgent.notificationBatchingInterval = 0
            let shown = MetadataQuery(connection: connection, predicateFormat: "name == 'Plan.txt'")
            shown.attributes = ["name", "tags"]
            shown.notificationBatchingInterval = 0
            let urgentEvents = NotificationRecorder.recording(try await urgent.start())
            let shownEvents = NotificationRecorder.recording(try await shown.start())
            #expect(try await urgentEvents.gathered().isEmpty)
            let before = try await shownEvents.gathered()
            #expect(before.map(\.path) == [file])
            #expect(before.first?.value(forAttribute: "tags") == nil)

            try TagReader.setTags(["home", "urgent"], atPath: file)
            #expect(try await urgentEvents.nextUpdate().added.map(\.path) == [file])
            let tagged = try await shownEvents.nextUpdate()
            #expect(tagged.changed.first?.value(forAttribute: "tags") == .array([.string("home"), .string("urgent")]))

            try TagReader.setTags(["home"], atPath: file)
            #expect(try await urgentEvents.nextUpdate().removed.map(\.path) == [file])
            let retagged = try await shownEvents.nextUpdate()
            #expect(retagged.changed.first?.value(forAttribute: "tags") == .array([.string("home")]))
            await connection.close()
        }
    }

    /// Files tagged before the daemon starts: the first answer of a query on tags has them
    /// (it waits for the tag pass after the crawl), from the real daemon process.
    @Test func tagsSetBeforeTheDaemonStartsAreInTheFirstAnswer() async throws {
        // Enough directories that the tag pass is still reading when the query comes (a query
        // that did not wait for it would miss the tags read last).
        let folders = 300
        try await withDaemon(prepare: { root in
            let documents = root + "/" + Self.grocery + "/Documents"
            for f in 0..<folders {
                try FS.mkdir(documents + "/F\(f)")
                for i in 0..<10 { try FS.write(documents + "/F\(f)/Note_\(i).txt", "n") }
            }
            for f in stride(from: 0, to: folders, by: 50) {
                try TagReader.setTags(["y", "x"], atPath: documents + "/F\(f)")
                try TagReader.setTags(["x"], atPath: documents + "/F\(f)/Note_7.txt")
                try TagReader.setTags(["y"], atPath: documents + "/F\(f)/Note_8.txt")
            }
        }) { daemon in
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let query = MetadataQuery(connection: connection, predicateFormat: "kMDItemUserTags == 'x'")
            let events = NotificationRecorder.recording(try await query.start())
            let found = try await events.gathered(within: 60).map(\.path).sorted()
            let expected = stride(from: 0, to: folders, by: 50).flatMap { f in
                [daemon.documents() + "/F\(f)", daemon.documents() + "/F\(f)/Note_7.txt"]
            }.sorted()
            #expect(found == expected)
            await connection.close()
        }
    }

    /// While the tag pass is held, a query that is not about tags answers (the files are in it and
    /// the watcher says their tags are still to be read); a query on tags answers only after the
    /// pass, exactly; a tag changed after that arrives as an update.
    /// The first snapshot waits for the crawl's tag pass; a shutdown meanwhile does not: it ends
    /// that wait, and the final snapshot is written at once. Here the pass never reads on its own
    /// (quiet period and longest deferral of an hour), as a pass of millions of entries is still
    /// under way when a `systemctl stop` comes.
    @Test func aShutdownDoesNotWaitForTheFirstTagPass() async throws {
        let daemon = try await InProcessDaemon(prepare: { root in
            for i in 0..<5 { try FS.write(root + "/com.example.grocery/Documents/Item_\(i)", "x") }
        }, adjust: { settings in
            settings.watcher.tagPassQuietPeriod = .seconds(3600)
            settings.watcher.tagPassLongestDeferral = .seconds(3600)
        })
        #expect(daemon.daemon.watcher.status.tagPassPending > 0)
        // Stopped on a task of its own and awaited only once it logged its end: a daemon that
        // waited for the pass would fail this test, not hang it.
        let stopping = Task(executorPreference: ThreadPerJobExecutor.shared) { try await daemon.stop() }
        try await daemon.waitForLog("stopped", within: 30)
        try await stopping.value
        #expect(daemon.log.contains("reason=shutdown"), "\(daemon.log)")
        #expect(!daemon.log.contains("first crawl"), "\(daemon.log)")
    }

    @Test func onlyQueriesOnTagsWaitForTheTagPass() async throws {
        try await withDaemon { daemon in
            let watcher = daemon.daemon.watcher
            // A folder of tagged files moved in whole: the watcher crawls it and defers its tags.
            let staged = daemon.directory + "/Batch"
            try FS.mkdir(staged)
            for i in 0..<20 { try FS.write(staged + "/T_\(i).txt", "t") }
            try TagReader.setTags(["x"], atPath: staged + "/T_3.txt")
            try TagReader.setTags(["x", "z"], atPath: staged + "/T_11.txt")
            await watcher.holdTagPass()
            try FS.rename(staged, daemon.documents() + "/Batch")
            let moved = daemon.documents() + "/Batch"

            // Two connections: a connection answers its requests in order, so a query sent after
            // the one on tags on the same connection would wait for it (docs/protocol.md).
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let taggedConnection = try await UbiquityConnection.connect(to: daemon.socket)
            let tagged = MetadataQuery(connection: taggedConnection, predicateFormat: "kMDItemUserTags == 'x'")
            tagged.notificationBatchingInterval = 0
            let taggedAnswered = Mutex(false)
            let taggedStart = Task(executorPreference: ThreadPerJobExecutor.shared) {
                let events = NotificationRecorder.recording(try await tagged.start())
                let first = try await events.gathered(within: 60)
                taggedAnswered.withLock { $0 = true }
                return (events, first)
            }
            let names = MetadataQuery(connection: connection, predicateFormat: "kMDItemFSName LIKE 'T_*'")
            let nameEvents = NotificationRecorder.recording(try await names.start())
            #expect(try await nameEvents.gathered().count == 20)
            // Answered while the tags of the folder are still to be read (held): it did not wait.
            // The reader publishes its status once per turn of its loop, which can come just after
            // the sync that answered the query: wait for it, with a deadline.
            try await watcher.waitForStatus("the reader publishes the held tag pass") { $0.tagPassPending > 0 }
            #expect(watcher.status.tagPassPending > 0)
            #expect(!taggedAnswered.withLock { $0 })

            watcher.releaseTagPass()
            let (taggedEvents, first) = try await taggedStart.value
            #expect(first.map(\.path).sorted() == [moved + "/T_11.txt", moved + "/T_3.txt"])
            #expect(watcher.status.tagPassPending == 0)

            try TagReader.setTags(["z"], atPath: moved + "/T_11.txt")
            #expect(try await taggedEvents.nextUpdate().removed.map(\.path) == [moved + "/T_11.txt"])
            try TagReader.setTags(["x"], atPath: moved + "/T_0.txt")
            #expect(try await taggedEvents.nextUpdate().added.map(\.path) == [moved + "/T_0.txt"])
            await connection.close()
            await taggedConnection.close()
        }
    }
}
