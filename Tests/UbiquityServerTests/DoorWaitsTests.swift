import Foundation
import Glibc
import Logging
import Testing
import UbiquityKit
import UbiquitySystem
import UbiquityTesting
@testable import UbiquityServer

/// The door's waiting calls (`fsync`, the durable replace, a recursive removal) never run on an
/// actor or Swift's cooperative pool: with a `WaitRecorder` installed around the daemon and the
/// client, every such call made on a task of theirs is recorded — and none may be
/// (docs/architecture.md, "One door to the system").
@Suite("The door's waiting calls stay off tasks")
struct DoorWaitsTests {
    @Test("The recorder sees a wait made on a task (so the test below can fail)")
    func aWaitOnATaskIsRecorded() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let recorder = WaitRecorder()
        try System.$waitRecorder.withValue(recorder) { try Self.syncHere(base) }
        #expect(recorder.recorded == ["fsync \(base)"])
    }

    @Test("Making the daemon, saving its index, kv.set, Document creates and saves (of a file and of a package) and resolving conflict versions wait on pools, never on a task")
    func theDaemonAndUbiquityKitWaitOffTheirTasks() async throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let root = base + "/root", socket = base + "/s.sock", documents = base + "/root/com.example.grocery/Documents"
        try FS.mkdirs(documents)
        let item = documents + "/Item_1"
        try FS.write(item, "Milk")
        let recorder = WaitRecorder()
        try await System.$waitRecorder.withValue(recorder) {
            let configuration = try DaemonConfiguration.select(configPath: nil, root: root, socketPath: socket, uid: geteuid(), environment: [:])
            var settings = DaemonSettings(containers: configuration.resolveContainers().containers, endpoint: .path(socket),
                                          limits: configuration.limits)
            settings.trapsSignals = false
            settings.stateDirectory = base + "/state"      // fresh: the device id is made and written durably
            settings.indexDirectory = settings.stateDirectory  // the saved index: after the first crawl and at shutdown
            let daemon = try await Daemon.open(settings: settings, logger: Logger(label: "door-waits") { _ in SwiftLogNoOpLogHandler() })
            let running = Task { try await daemon.run() }
            await daemon.server.waitUntilBound()
            do {
                let store = try await KeyValueStore.open(connection: try await UbiquityConnection.connect(to: socket))
                try await store.set("oat", forKey: "milk")
                try await Document.create(documents + "/Item_created", contents: Data("Bread".utf8))
                // Three writers read the same version; the second and third saves become conflict versions.
                var opened: [Document] = []
                for _ in 0..<3 { opened.append(try await Document.open(item, connection: try await UbiquityConnection.connect(to: socket))) }
                for document in opened { _ = try document.read() }
                guard case .saved = try await opened[0].save(Data("Oat milk".utf8)) else { throw TestDaemonError("the first save must go through") }
                for (index, document) in opened.dropFirst().enumerated() {
                    guard case .savedAsConflictVersion = try await document.save(Data("Copy \(index)".utf8)) else {
                        throw TestDaemonError("a stale save must become a conflict version")
                    }
                }
                let conflicts = try await FileVersion.unresolvedConflictVersionsOfItem(at: item, connection: opened[1].connection)
                #expect(conflicts.count == 2)
                try await conflicts[0].replaceItem(connection: opened[1].connection, removingOthers: true)
                #expect(try await FileVersion.otherVersionsOfItem(at: item, connection: opened[1].connection).isEmpty,
                        "the other conflict version is removed")
                for document in opened { await document.close() }
                // A package: built whole and moved into place, then changed file by file.
                let package = try await Document.open(documents + "/list.gro", connection: try await UbiquityConnection.connect(to: socket))
                try await package.updatePackage(commitFile: "index.txt", limit: 1 << 20) { update in
                    update.commit = Data("a".utf8)
                    update.newFiles["images/a.png"] = Data("A".utf8)
                }
                try await package.updatePackage(commitFile: "index.txt", limit: 1 << 20) { update in
                    update.commit = Data("b".utf8)
                    update.newFiles["images/b.png"] = Data("B".utf8)
                    update.removedFiles = ["images/a.png"]
                }
                #expect(try FS.names(documents + "/list.gro/images") == ["b.png"])
                await package.close()
            } catch {
                await daemon.shutDownGracefully()
                try? await running.value
                throw error
            }
            await daemon.shutDownGracefully()
            try await running.value
        }
        #expect(FileManager.default.fileExists(atPath: base + "/state/device-id"))
        #expect(FileManager.default.fileExists(atPath: base + "/state/" + IndexStore.snapshotName), "the index was saved")
        #expect(try FS.names(root + "/com.example.grocery/.ubiquity-kv").contains { $0.hasSuffix(".json") }, "this device's key-value file was written")
        #expect(recorder.recorded == [], "waited for the disk on a task: \(recorder.recorded)")
    }

    /// A synchronous hop (as an actor's synchronous method would make): the compiler allows it.
    static func syncHere(_ path: String) throws { try Directory.open(path).sync() }
}
