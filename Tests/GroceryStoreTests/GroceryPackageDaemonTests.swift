import Foundation
import GroceryStore
import Testing
import UbiquityKit
import UbiquityTesting

/// The package against the real `ubiquityd`: one item, whose every update is one `changed`.
@Suite(.ownThreads) struct GroceryPackageDaemonTests {
    static let container = "com.example.grocery"

    static func package(_ daemon: InProcessDaemon) -> GroceryPackage {
        GroceryPackage(documentsDirectory: daemon.documents(Self.container))
    }

    /// What the daemon reports as the package's size: the sum of the regular files inside.
    static func sizeOnDisk(_ path: String) throws -> Int64 {
        var total: Int64 = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: path))
        while let relative = enumerator.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + relative)
            if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? Int64) ?? 0 }
        }
        return total
    }

    /// A fresh one-shot query's result paths.
    static func fresh(_ daemon: InProcessDaemon, _ predicate: String) async throws -> [String] {
        try await UbiquityConnection.withConnection(to: daemon.socket) { connection in
            let query = MetadataQuery(connection: connection, predicateFormat: predicate)
            query.searchScopes = .documents
            query.isLive = false
            for try await _ in try await query.start() {}
            return query.results.map(\.path).sorted()
        }
    }

    typealias Update = (added: [MetadataItem], changed: [MetadataItem], removed: [MetadataItem])

    /// The next update; nil when the stream ended (the watchdog stops the query when nothing comes).
    static func nextUpdate(_ events: inout AsyncThrowingStream<MetadataQuery.Notification, any Error>.AsyncIterator) async throws -> Update? {
        while let notification = try await events.next() {
            if case .didUpdate(let added, let changed, let removed) = notification { return (added, changed, removed) }
        }
        return nil
    }

    @Test func thePackageIsOneItemAndEachUpdateIsOneChangeOfIt() async throws {
        try await withDaemon { daemon in
            let package = Self.package(daemon)
            let connection = try await UbiquityConnection.connect(to: daemon.socket)
            let query = MetadataQuery(connection: connection, predicateFormat: "kMDItemFSName LIKE '*'")
            query.searchScopes = .documents
            query.notificationBatchingInterval = 0
            query.attributes = ["kMDItemFSName", "kMDItemFSSize"]
            var events = try await query.start().makeAsyncIterator()
            // A missing event ends the stream (and fails the test) instead of hanging it.
            let watchdog = Task(executorPreference: ThreadPerJobExecutor.shared) {
                try await Task.sleep(for: .seconds(60))     // sleep-ok: the deadline of the whole test, cancelled at its end
                await query.stop()
            }
            defer { watchdog.cancel() }
            var gathered: [MetadataItem]?
            while gathered == nil, let notification = try await events.next() {
                if case .didFinishGathering(let results) = notification { gathered = results }
            }
            let documents = daemon.documents(Self.container)
            #expect(try #require(gathered).map(\.path) == [documents])   // Documents itself is an item

            /// Whether a `changed` is the package, or Documents itself (its modification date moves
            /// when the package is created or replaced in it: a change of a member like any other).
            func isPackageOrDocuments(_ item: MetadataItem) -> Bool { item.path == package.path || item.path == documents }

            /// Reads updates until the package's reported size is `expected`; every update on the
            /// way may only change the package — never add or remove it, never show what is inside.
            func expectChanges(until expected: Int64, _ step: String) async throws {
                while true {
                    let update = try #require(try await Self.nextUpdate(&events), "no update after \(step)")
                    try #require(update.added.isEmpty && update.removed.isEmpty, "\(step): \(update)")
                    #expect(update.changed.allSatisfy(isPackageOrDocuments), "\(step): \(update.changed.map(\.path))")
                    if update.changed.contains(where: { $0.path == package.path && $0.size == expected }) { return }
                }
            }

            // Created: exactly one `added`, of the package itself and complete.
            let milk = try await package.update(connection: connection) { try $0.add(name: "Milk") }
            var created = try #require(try await Self.nextUpdate(&events))
            while created.added.isEmpty {
                #expect(created.removed.isEmpty && created.changed.map(\.path) == [documents], "before the package: \(created)")
                created = try #require(try await Self.nextUpdate(&events))
            }
            #expect(created.added.map(\.path) == [package.path])
            #expect(created.removed.isEmpty && created.changed.allSatisfy { $0.path == documents })
            var expected = try Self.sizeOnDisk(package.path)
            if created.added.first?.size != expected { try await expectChanges(until: expected, "creation") }

            try await package.update(connection: connection) { try $0.add(name: "Bread and butter") }
            expected = try Self.sizeOnDisk(package.path)
            try await expectChanges(until: expected, "add")

            try await package.update(connection: connection) { try $0.rename(milk.id, to: "Oat milk, 2 l") }
            expected = try Self.sizeOnDisk(package.path)
            try await expectChanges(until: expected, "rename")

            try await package.update(connection: connection) { try $0.setImage(SampleImage.png, for: milk.id) }
            expected = try Self.sizeOnDisk(package.path)
            try await expectChanges(until: expected, "setImage")

            try await package.update(connection: connection) { try $0.setImage(SampleImage.jpeg, for: milk.id) }
            expected = try Self.sizeOnDisk(package.path)
            try await expectChanges(until: expected, "replace the image")

            #expect(query.results.map(\.path) == [documents, package.path])
            #expect(try await Self.fresh(daemon, "kMDItemFSName == 'grocery.gro'") == [package.path])
            #expect(try await Self.fresh(daemon, "kMDItemFSName LIKE '*'") == [documents, package.path])
            await query.stop()
            await connection.close()
        }
    }
}
