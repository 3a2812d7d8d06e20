import Foundation
import Glibc
import Synchronization
import Testing
@testable import UbiquityIndex
import UbiquityWatch

/// What a test compares: one entry of the index or of a crawl.
struct EntrySummary: Hashable, CustomStringConvertible {
    var kind: FileStat.Kind
    var size: Int64
    var modified: Int64
    var mode: UInt32
    var inode: UInt64
    var created: Int64

    init(_ stat: FileStat) {
        kind = stat.kind
        size = stat.size
        modified = stat.modified
        mode = stat.mode
        inode = stat.inode
        created = stat.created
    }

    var description: String { "\(kind) size=\(size) mtime=\(modified) mode=\(String(mode, radix: 8)) ino=\(inode)" }
}

/// Relative path → summary, for every entry of a crawl.
func crawlSnapshot(root: String) throws -> [String: EntrySummary] {
    let listing = try Crawler().crawl(root: root).listing
    var paths: [String] = []
    var result: [String: EntrySummary] = [:]
    for entry in listing.entries {
        let path = entry.parent < 0 ? entry.name : paths[Int(entry.parent)] + "/" + entry.name
        paths.append(path)
        result[path] = EntrySummary(entry.stat)
    }
    return result
}

/// Relative path → summary, for every entry the index holds below a container root.
func indexSnapshot(_ index: MetadataIndex, container: Int) -> [String: EntrySummary] {
    guard let root = index.lookup(container: container, []) else { return [:] }
    var result: [String: EntrySummary] = [:]
    var stack: [(ItemID, String)] = [(root, "")]
    while let (id, prefix) = stack.popLast() {
        for (name, child) in index.entry(id).children ?? [:] {
            let path = prefix.isEmpty ? name : prefix + "/" + name
            result[path] = EntrySummary(index.entry(child).stat)
            stack.append((child, path))
        }
    }
    return result
}

/// Lines describing how two snapshots differ; empty when equal.
func difference(index: [String: EntrySummary], crawl: [String: EntrySummary]) -> [String] {
    var lines: [String] = []
    for path in Set(index.keys).union(crawl.keys).sorted() {
        switch (index[path], crawl[path]) {
        case (nil, let disk?): lines.append("missing from index: \(path) (\(disk))")
        case (let indexed?, nil): lines.append("stale in index: \(path) (\(indexed))")
        case (let indexed?, let disk?) where indexed != disk: lines.append("differs: \(path) index \(indexed) disk \(disk)")
        default: break
        }
    }
    return lines
}

/// Everything a watcher emitted so far, as a predicate sees it.
struct Recorded: Sendable {
    var changes: [FileSystemChange]
    var notices: [ChangeNotice]
    var batches: [ChangeBatch]
    var applied: UInt64
    var finished: Bool
    /// Batch sequence → absolute paths of the items the index reported as inserted/updated/removed.
    var touched: [UInt64: Set<String>] = [:]

    /// Paths (joined with `/`) of every change of the given shape.
    func stats(_ path: String) -> [FileStat] {
        changes.compactMap { if case .stat(_, let p, let s) = $0, p.joined(separator: "/") == path { s } else { nil } }
    }
    func hasStat(_ path: String, where condition: (FileStat) -> Bool = { _ in true }) -> Bool {
        stats(path).contains(where: condition)
    }
    func hasRemove(_ path: String) -> Bool {
        changes.contains { if case .remove(_, let p) = $0 { p.joined(separator: "/") == path } else { false } }
    }
    func hasMove(_ from: String, _ to: String) -> Bool {
        changes.contains {
            if case .move(_, let f, let t, _) = $0 { f.joined(separator: "/") == from && t.joined(separator: "/") == to } else { false }
        }
    }
    /// A `.listing` rooted at `path` whose entries include `entry` (relative to the listing's root).
    func hasListing(_ path: String, containing entry: String? = nil) -> Bool {
        changes.contains {
            guard case .listing(_, let p, let listing) = $0, p.joined(separator: "/") == path, listing.root != nil else { return false }
            guard let entry else { return true }
            return listingPaths(listing).contains(entry)
        }
    }
}

func listingPaths(_ listing: CrawlListing) -> [String] {
    var paths: [String] = []
    for entry in listing.entries {
        paths.append(entry.parent < 0 ? entry.name : paths[Int(entry.parent)] + "/" + entry.name)
    }
    return paths
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Feeds every batch into a real `MetadataIndex` and lets tests wait for what they expect.
final class Recorder: Sendable {
    private struct Waiter {
        var predicate: @Sendable (Recorded) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        let index: MetadataIndex
        var recorded = Recorded(changes: [], notices: [], batches: [], applied: 0, finished: false)
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state: Mutex<State>

    init(containers: [ContainerDescriptor]) {
        let index = MetadataIndex()
        for container in containers { index.addContainer(container) }
        index.tagsReader = TagReader.reader
        state = Mutex(State(index: index))
    }

    func apply(_ batch: ChangeBatch) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            let changeSet = state.index.apply(batch.changes)
            var touched = Set<String>()
            for (id, change) in changeSet.changes {
                if change.kind == .removed {
                    if let before = change.before { touched.insert(before.path) }
                } else {
                    touched.insert(state.index.path(of: id))
                }
            }
            state.recorded.touched[batch.sequence] = touched
            state.recorded.changes += batch.changes
            state.recorded.notices += batch.notices
            state.recorded.batches.append(batch)
            state.recorded.applied = batch.sequence
            return Self.satisfied(&state)
        }
        for continuation in ready { continuation.resume() }
    }

    func finish() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.recorded.finished = true
            return Self.satisfied(&state)
        }
        for continuation in ready { continuation.resume() }
    }

    private static func satisfied(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var ready: [CheckedContinuation<Void, any Error>] = []
        for (id, waiter) in state.waiters where waiter.predicate(state.recorded) {
            ready.append(waiter.continuation)
            state.waiters[id] = nil
        }
        return ready
    }

    var recorded: Recorded { state.withLock { $0.recorded } }

    func withIndex<T: Sendable>(_ body: (MetadataIndex) -> T) -> T { state.withLock { body($0.index) } }

    /// Waits until `predicate` holds for what was recorded, failing after `timeout`.
    func wait(
        for what: String, timeout: Duration = .seconds(15),
        _ predicate: @escaping @Sendable (Recorded) -> Bool
    ) async throws {
        let id = state.withLock { state -> Int? in
            if predicate(state.recorded) { return nil }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let ready = self.state.withLock { state -> Bool in
                        if predicate(state.recorded) { return true }
                        state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                guard let continuation = self.state.withLock({ $0.waiters.removeValue(forKey: id)?.continuation }) else {
                    return                  // satisfied meanwhile
                }
                let error = TimedOut(description: "timed out after \(timeout) waiting for \(what)")
                continuation.resume(throwing: error)
                throw error
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}

/// A container in a fresh temporary directory, watched by a real `FileWatcher` whose batches are
/// applied to a real `MetadataIndex`.
final class Harness: Sendable {
    static let containerID = try! ContainerID("com.example.watch")

    /// The temporary directory: holds the container root and an `outside` directory.
    let base: String
    let root: String
    let outside: String
    let watcher: FileWatcher
    let recorder: Recorder
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
    static func start(
        configuration: FileWatcher.Configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100)),
        packageTypes: [String: String] = [:],
        populate: (String) throws -> Void = { _ in }
    ) async throws -> Harness {
        let base = try FS.temporaryDirectory()
        let root = base + "/" + containerID.rawValue
        try FS.mkdir(root)
        try FS.mkdir(base + "/outside")
        try populate(root)
        let descriptor = ContainerDescriptor(id: containerID, root: root, packageTypes: packageTypes)
        let watcher = try FileWatcher(containers: [descriptor], configuration: configuration)
        let recorder = Recorder(containers: [descriptor])
        let batches = watcher.batches
        let consumer = Task {
            for await batch in batches { recorder.apply(batch) }
            recorder.finish()
        }
        try watcher.start()
        let harness = Harness(base: base, root: root, watcher: watcher, recorder: recorder, consumer: consumer)
        try await recorder.wait(for: "the initial listing") { $0.hasListing("") }
        return harness
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    /// Stops the watcher and removes the temporary directory.
    func stop() async {
        await watcher.stop()
        await consumer.value
        try? FileManager.default.removeItem(atPath: base)
    }

    /// Syncs, waits until the index applied everything the sync covers, and asserts that the
    /// index equals a fresh crawl (and that no cookie ever reached the index's input).
    func converge(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let sequence = try await watcher.sync()
        try await recorder.wait(for: "batch \(sequence) to be applied") { $0.applied >= sequence }
        let disk = try crawlSnapshot(root: root)
        let indexed = recorder.withIndex { indexSnapshot($0, container: 0) }
        let lines = difference(index: indexed, crawl: disk)
        #expect(lines.isEmpty, "index differs from a fresh crawl:\n\(lines.prefix(20).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        let cookies = recorder.recorded.changes.filter(Harness.mentionsCookie)
        #expect(cookies.isEmpty, "sync cookies leaked into changes: \(cookies.prefix(3))", sourceLocation: sourceLocation)
    }

    private static func mentionsCookie(_ change: FileSystemChange) -> Bool {
        func cookie(_ path: [String]) -> Bool { path.contains { $0.hasPrefix(Crawler.cookiePrefix) } }
        switch change {
        case .stat(_, let path, _), .remove(_, let path): return cookie(path)
        case .move(_, let from, let to, _): return cookie(from) || cookie(to)
        case .listing(_, let path, let listing):
            return cookie(path) || listing.entries.contains { $0.name.hasPrefix(Crawler.cookiePrefix) }
        }
    }

    /// Runs a test body with a started harness and always stops it.
    static func with(
        configuration: FileWatcher.Configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100)),
        packageTypes: [String: String] = [:],
        populate: (String) throws -> Void = { _ in },
        _ body: (Harness) async throws -> Void
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

/// Plain file operations through Glibc, so each test controls exactly which events happen.
enum FS {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func check(_ result: Int32, _ what: @autoclosure () -> String) throws {
        if result != 0 { throw Failure(description: "\(what()): \(String(cString: strerror(errno)))") }
    }

    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/ubiquity-watch-XXXXXX".utf8CString)
        guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp failed")
        }
        return String(cString: result)
    }

    static func mkdir(_ path: String, mode: mode_t = 0o755) throws {
        try check(Glibc.mkdir(path, mode), "mkdir \(path)")
    }

    /// `mkdir -p`, one level after the other as the tool does.
    static func mkdirs(_ path: String) throws {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if Glibc.mkdir(current, 0o755) != 0 && errno != EEXIST { try check(-1, "mkdir \(current)") }
        }
    }

    /// Writes (or appends) bytes with open/write/close.
    static func write(_ path: String, _ text: String, append: Bool = false) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0o644)
        guard fd >= 0 else { throw Failure(description: "open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written != bytes.count { throw Failure(description: "write \(path)") }
    }

    static func rename(_ from: String, _ to: String) throws { try check(Glibc.rename(from, to), "rename \(from) \(to)") }
    static func unlink(_ path: String) throws { try check(Glibc.unlink(path), "unlink \(path)") }
    static func symlink(_ target: String, _ path: String) throws { try check(Glibc.symlink(target, path), "symlink \(path)") }
    static func link(_ existing: String, _ path: String) throws { try check(Glibc.link(existing, path), "link \(path)") }
    static func chmod(_ path: String, _ mode: mode_t) throws { try check(Glibc.chmod(path, mode), "chmod \(path)") }
    static func removeTree(_ path: String) throws { try FileManager.default.removeItem(atPath: path) }

    /// The names in a directory (cookies included: this is not the crawler).
    static func names(_ directory: String) throws -> [String] {
        guard let stream = opendir(directory) else { throw Failure(description: "opendir \(directory)") }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Waits for a condition of the file system that no watcher event announces (another task's
    /// side effect), checking between yields; fails after `timeout`.
    static func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            if ContinuousClock.now > deadline { throw TimedOut(description: "timed out waiting until \(what)") }
            await Task.yield()
        }
    }
}
