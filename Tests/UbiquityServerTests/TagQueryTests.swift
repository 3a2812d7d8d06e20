import Foundation
import Testing
import UbiquityKit
import UbiquityPredicate
import UbiquityWatch

/// Tags travel with the watcher's changes: a live query on tags hears a tag added, changed and
/// removed, and a query that shows tags sees the new list, from the real daemon and real xattrs.
@Suite struct TagQueryTests {
    static let grocery = "com.example.grocery"

    @Test func aLiveQueryOnTagsHearsTagsAddedChangedAndRemoved() async throws {
        try await withInProcessDaemon { daemon in
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
}
