import Foundation
import Glibc
import Testing
import UbiquityIndex
import UbiquityWatch

/// The engine's list of unwatched subtrees follows the watcher's: directories that could not be
/// watched and then went away leave it, so creating and deleting them in a loop does not grow it.
@Suite("Engine's unwatched list on real inotify", .serialized)
struct EngineUnwatchedListTests {
    @Test func unwatchableDirectoriesCreatedAndRemovedInALoopLeaveTheListEmpty() async throws {
        try await Self.withEngine { root, engine in
            for i in 0..<20 {
                let directory = root + "/Documents/dir_\(i)"
                #expect(mkdir(directory, 0o755) == 0)
                try await engine.synchronize()
                #expect(await engine.unwatched.map(\.path) == [["Documents", "dir_\(i)"]], "round \(i)")
                #expect(rmdir(directory) == 0)
                try await engine.synchronize()
                #expect(await engine.unwatched.isEmpty, "round \(i)")
            }
            // Renamed while unwatched: the list holds the new path only.
            #expect(mkdir(root + "/Documents/before", 0o755) == 0)
            try await engine.synchronize()
            #expect(rename(root + "/Documents/before", root + "/Documents/after") == 0)
            try await engine.synchronize()
            #expect(await engine.unwatched.map(\.path) == [["Documents", "after"]])
            // The container going away empties it.
            try FileManager.default.removeItem(atPath: root)
            try await engine.synchronize()
            #expect(await engine.unwatched.isEmpty)
        }
    }

    /// Two directories `café`, one precomposed (`C3 A9`) and one decomposed (`65 CC 81`), equal
    /// as strings but two names on Linux, both unwatched: two records, in byte order, and the
    /// second one's removal leaves the first. Keyed by `[String]`, the second replaced the first
    /// (one record) and removing either emptied the list.
    @Test func canonicallyEqualDirectoriesAreTwoRecords() async throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try await Self.withEngine { root, engine in
            #expect(mkdir(root + "/Documents/" + composed, 0o755) == 0)
            try await engine.synchronize()
            #expect(mkdir(root + "/Documents/" + decomposed, 0o755) == 0)
            try await engine.synchronize()
            // Byte order: `65` (e) before `C3` (the first byte of precomposed é).
            #expect(await engine.unwatched.map { ExactName.path($0.path) } == [ExactName.path(["Documents", decomposed]), ExactName.path(["Documents", composed])])
            #expect(rmdir(root + "/Documents/" + decomposed) == 0)
            try await engine.synchronize()
            #expect(await engine.unwatched.map { ExactName.path($0.path) } == [ExactName.path(["Documents", composed])])
        }
    }

    /// Runs `body` with an engine fed by a real watcher on a container holding `Documents`, the
    /// root and `Documents` using the whole budget: every new directory is unwatched (as root,
    /// permissions cannot make a directory unwatchable, the budget can).
    private static func withEngine(_ body: (_ root: String, _ engine: QueryEngine) async throws -> Void) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ubq-unwatched-\(UUID().uuidString)")
        let root = base.appendingPathComponent("com.example.unwatched").path
        try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let descriptor = ContainerDescriptor(id: try ContainerID("com.example.unwatched"), root: root)
        let configuration = FileWatcher.Configuration(maxWatches: 2, rescanInterval: .seconds(60))
        let watcher = try FileWatcher(containers: [descriptor], configuration: configuration)
        let engine = QueryEngine(containers: [descriptor], source: WatcherChangeSource(watcher))
        try watcher.start()
        let runner = Task { await engine.run() }
        defer { runner.cancel() }
        try await body(root, engine)
        await watcher.stop()
    }
}
