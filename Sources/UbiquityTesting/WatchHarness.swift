import Foundation
public import Testing
public import UbiquityIndex
public import UbiquityWatch

/// A container in a fresh temporary directory, watched by a real `FileWatcher` whose batches are
/// applied to a real `MetadataIndex`.
public final class WatchHarness: Sendable {
    public static let containerID = try! ContainerID("com.example.watch")

    /// The temporary directory: holds the container root and an `outside` directory.
    public let base: String
    public let root: String
    public let outside: String
    public let watcher: FileWatcher
    public let recorder: Recorder
    private let consumer: Task<Void, Never>

    private init(base: String, root: String, watcher: FileWatcher, recorder: Recorder, consumer: Task<Void, Never>) {
        self.base = base
        self.root = root
        self.outside = base + "/outside"
        self.watcher = watcher
        self.recorder = recorder
        self.consumer = consumer
    }

    /// - Parameters:
    ///   - populate: Runs before the watcher starts, with the container root.
    public static func start(
        configuration: FileWatcher.Configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100)),
        packageTypes: [String: String] = [:],
        populate: (String) throws -> Void = { _ in }
    ) async throws -> WatchHarness {
        let base = try FS.temporaryDirectory()
        let root = base + "/" + containerID.rawValue
        try FS.mkdir(root)
        try FS.mkdir(base + "/outside")
        try populate(root)
        let descriptor = ContainerDescriptor(id: containerID, root: root, packageTypes: packageTypes)
        let watcher = try FileWatcher(containers: [descriptor], configuration: configuration)
        let recorder = Recorder(containers: [descriptor])
        let batches = watcher.batches
        let consumer = Task(executorPreference: ThreadPerJobExecutor.shared) {
            for await batch in batches { recorder.apply(batch) }
            recorder.finish()
        }
        try watcher.start()
        let harness = WatchHarness(base: base, root: root, watcher: watcher, recorder: recorder, consumer: consumer)
        try await recorder.wait(for: "the initial listing") { $0.hasListing("") }
        return harness
    }

    public func path(_ relative: String) -> String { root + "/" + relative }

    /// Stops the watcher and removes the temporary directory.
    public func stop() async {
        await watcher.stop()
        await consumer.value
        try? FileManager.default.removeItem(atPath: base)
    }

    /// Syncs, waits until the index applied everything the sync covers, and asserts that the
    /// index equals a fresh crawl, tags included (and that no cookie ever reached the index's input).
    public func converge(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let sequence = try await watcher.sync(includingTags: true)
        try await recorder.wait(for: "batch \(sequence) to be applied") { $0.applied >= sequence }
        let disk = try crawlSnapshot(root: root)
        let indexed = recorder.withIndex { indexSnapshot($0, container: 0) }
        let lines = difference(index: indexed, crawl: disk)
        #expect(lines.isEmpty, "index differs from a fresh crawl:\n\(lines.prefix(20).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        let cookies = recorder.recorded.changes.filter(WatchHarness.mentionsCookie)
        #expect(cookies.isEmpty, "sync cookies leaked into changes: \(cookies.prefix(3))", sourceLocation: sourceLocation)
    }

    private static func mentionsCookie(_ change: FileSystemChange) -> Bool {
        func cookie(_ path: [String]) -> Bool { path.contains { $0.hasPrefix(Crawler.cookiePrefix) } }
        switch change {
        case .stat(_, let path, _), .remove(_, let path): return cookie(path)
        case .move(_, let from, let to, _): return cookie(from) || cookie(to)
        case .listing(_, let path, let listing):
            return cookie(path) || listing.entries.contains { $0.name.hasPrefix(Crawler.cookiePrefix) }
        case .tags(_, let path, _, let tags):
            return cookie(path) || tags.keys.contains { $0.string.hasPrefix(Crawler.cookiePrefix) }
        case .listingPart(_, let part):
            return part.entries.contains { $0.name.hasPrefix(Crawler.cookiePrefix) }
        }
    }

    /// Runs a test body with a started harness and always stops it.
    public static func with(
        configuration: FileWatcher.Configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100)),
        packageTypes: [String: String] = [:],
        populate: (String) throws -> Void = { _ in },
        _ body: (WatchHarness) async throws -> Void
    ) async throws {
        let harness = try await start(configuration: configuration, packageTypes: packageTypes, populate: populate)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
