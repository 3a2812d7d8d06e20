// Sections 2 and 3, on one watcher + engine over a 10k tree: change-to-notification latency of
// single file creations, and a burst of 100,000 creations in 100 directories.
import BenchmarkSupport
import Glibc
import Foundation
import UbiquityIndex
import UbiquityPredicate
import UbiquityWatch

struct LatencyResult {
    let files: Int
    /// Seconds from just before `open(O_CREAT)` to the `update` that adds the file; timeouts excluded.
    let samples: [Double]
    let timeouts: Int
    var sorted: [Double] { samples.sorted() }
    var p50: Double { percentile(sorted, 0.50) }
    var p99: Double { percentile(sorted, 0.99) }
    var max: Double { sorted.last ?? 0 }
    var mean: Double { samples.isEmpty ? 0 : samples.reduce(0, +) / Double(samples.count) }
}

struct BurstResult {
    let files: Int
    let directories: Int
    /// First creation → last creation (the writer thread).
    let creationSeconds: Double
    /// First creation → the subscriber's view holds every file; nil when it never did.
    let completeSeconds: Double?
    /// `Item_burst_*` paths in the subscriber's view at the end.
    let reported: Int
    /// `resync` events the subscriber read, and the watcher's own counts.
    let resyncEvents: Int
    let overflows: Int
    let rescans: Int
    let resets: Int
    let updates: Int
    /// `engine.count(kMDItemFSName LIKE 'Item_burst_*')` afterwards: what the index holds.
    let indexed: Int
    var complete: Bool { completeSeconds != nil && reported == files }
}

let latencyFiles = 1_000
let latencyTimeout: Duration = .seconds(5)
let burstFiles = 100_000
let burstDirectories = 100
/// Give up on the burst when the view is still incomplete this long after the last creation.
let burstTimeout: Duration = .seconds(120)

func liveSpec() throws -> QuerySpecification {
    QuerySpecification(predicate: try MetadataPredicate(parsing: itemPredicate), scopes: [.documents],
                       batchingInterval: .zero)
}

/// Reads events up to and including `gatheringFinished`.
func readGathering(_ engine: QueryEngine, _ id: QueryID) async throws -> [ResultItem] {
    for await event in engine.events(id) {
        if case .gatheringFinished(let results, _, _, _) = event { return Array(results) }
    }
    throw BenchmarkError("query \(id) ended before gatheringFinished")
}

func runLiveSections(_ tree: GeneratedTree) async throws -> (LatencyResult, BurstResult) {
    let watcher = try FileWatcher(containers: [descriptor(tree)])
    try watcher.start()
    let engine = QueryEngine(containers: [descriptor(tree)], source: WatcherChangeSource(watcher))
    let runner = Task { await engine.run() }
    do {
        let latency = try await measureLatency(tree, engine)
        let burst = try await measureBurst(tree, engine, watcher)
        await watcher.stop()
        await runner.value
        return (latency, burst)
    } catch {
        await watcher.stop()
        await runner.value
        throw error
    }
}

// MARK: - 2. Latency

/// Waits for the `update` that adds a path ending in `suffix`; returns the monotonic time it was
/// read, or nil after `timeout`. Other events are passed over.
func waitForAdded(_ engine: QueryEngine, _ id: QueryID, suffix: String) async -> UInt64? {
    var iterator = engine.events(id).makeAsyncIterator()
    while !Task.isCancelled {
        guard let event = await iterator.next() else {
            // A reader cancelled by an earlier timeout may still be registered: retry.
            await Task.yield()
            continue
        }
        if case .update(let delta) = event, delta.added.contains(where: { $0.path.hasSuffix(suffix) }) {
            return nowNanoseconds()
        }
    }
    return nil
}

func measureLatency(_ tree: GeneratedTree, _ engine: QueryEngine) async throws -> LatencyResult {
    Log.progress("latency: \(latencyFiles) single files into Documents/, live query at interval 0")
    let id = try await engine.start(try liveSpec())
    _ = try await readGathering(engine, id)
    var samples: [Double] = []
    var timeouts = 0
    for n in 0..<latencyFiles {
        let path = tree.root + "/Documents/Item_lat_\(n)"
        let suffix = "/Item_lat_\(n)"
        // The subscriber is already waiting when the file is created, as a client's reader would be.
        let outcome: (start: UInt64, seen: UInt64?) = try await withThrowingTaskGroup(of: UInt64?.self) { group in
            group.addTask { await waitForAdded(engine, id, suffix: suffix) }
            group.addTask {
                try? await Task.sleep(for: latencyTimeout)
                return nil
            }
            let start = nowNanoseconds()
            let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw BenchmarkError("create \(path): errno \(errno)") }
            close(fd)
            let first = try await group.next() ?? nil
            group.cancelAll()
            return (start, first)
        }
        if let seen = outcome.seen {
            samples.append(Double(seen - outcome.start) / 1e9)
        } else {
            timeouts += 1
            Log.error("latency: no update adding Item_lat_\(n) within \(latencyTimeout)")
        }
        if (n + 1) % 250 == 0 { Log.progress("latency: \(n + 1) / \(latencyFiles)") }
    }
    try await engine.stop(id)
    await engine.release(id)
    return LatencyResult(files: latencyFiles, samples: samples, timeouts: timeouts)
}

// MARK: - 3. Burst

/// The subscriber's view of a live query: paths, with updates and resets applied.
struct PathView {
    var paths: Set<String> = []
    var burst = 0
    var resyncs = 0
    var resets = 0
    var updates = 0

    static func isBurst(_ path: String) -> Bool { path.contains("/Item_burst_") }

    mutating func replace(_ results: some Collection<ResultItem>) {
        paths = Set(results.map(\.path))
        burst = paths.reduce(0) { $0 + (PathView.isBurst($1) ? 1 : 0) }
    }

    mutating func insert(_ path: String) {
        if paths.insert(path).inserted, PathView.isBurst(path) { burst += 1 }
    }

    mutating func remove(_ path: String) {
        if paths.remove(path) != nil, PathView.isBurst(path) { burst -= 1 }
    }

    mutating func apply(_ event: QueryEvent) {
        switch event {
        case .gatheringFinished(let results, _, _, _): replace(results)
        case .reset(let results, _):
            resets += 1
            replace(results)
        case .update(let delta):
            updates += 1
            for item in delta.removed { remove(item.path) }
            for item in delta.changed {
                if let old = item.oldPath { remove(old) }
                insert(item.path)
            }
            for item in delta.added { insert(item.path) }
        case .notice(.resync, _): resyncs += 1
        default: break
        }
    }
}

/// What the writer thread did.
struct WriterReport: Sendable {
    var first: UInt64
    var last: UInt64
    var failures: Int
}

/// Creates `count` empty files `Item_burst_<i>` round-robin over `directories` on its own thread
/// (not the cooperative pool, which the engine needs).
func writeBurst(directories: [Int32], count: Int) async -> WriterReport {
    await withCheckedContinuation { (continuation: CheckedContinuation<WriterReport, Never>) in
        let thread = Thread {
            var failures = 0
            let first = nowNanoseconds()
            for i in 0..<count {
                let fd = openat(directories[i % directories.count], "Item_burst_\(i)", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
                if fd < 0 { failures += 1 } else { close(fd) }
            }
            continuation.resume(returning: WriterReport(first: first, last: nowNanoseconds(), failures: failures))
        }
        thread.start()
    }
}

func measureBurst(_ tree: GeneratedTree, _ engine: QueryEngine, _ watcher: FileWatcher) async throws -> BurstResult {
    Log.progress("burst: \(grouped(burstFiles)) creations in \(burstDirectories) directories, live query at interval 0")
    var fds: [Int32] = []
    defer { for fd in fds { close(fd) } }
    for d in 0..<burstDirectories {
        let path = tree.root + "/Documents/burst_\(d)"
        try Tree.makeDirectory(path)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw BenchmarkError("open \(path): errno \(errno)") }
        fds.append(fd)
    }
    let statusBefore = watcher.status
    // start() synchronises with the watcher: the 100 directories are watched before it returns.
    let id = try await engine.start(try liveSpec())
    var initial = PathView()
    initial.replace(try await readGathering(engine, id))
    let seeded = initial

    let target = burstFiles
    let reader = Task { () -> (PathView, UInt64?) in
        var view = seeded
        for await event in engine.events(id) {
            view.apply(event)
            if view.burst == target { return (view, nowNanoseconds()) }
        }
        return (view, nil)          // cancelled (timed out)
    }
    let directories = fds
    let writer = await writeBurst(directories: directories, count: burstFiles)
    Log.progress(String(format: "burst: files created in %.2f s; waiting for the subscriber's view", seconds(since: writer.first, to: writer.last)))
    let watchdog = Task {
        try await Task.sleep(for: burstTimeout)
        reader.cancel()
    }
    let (view, done) = await reader.value
    watchdog.cancel()
    if writer.failures > 0 { Log.error("burst: \(writer.failures) creations failed") }

    let indexed = await engine.count(try MetadataPredicate(parsing: "kMDItemFSName LIKE 'Item_burst_*'"))
    let statusAfter = watcher.status
    try await engine.stop(id)
    await engine.release(id)
    return BurstResult(
        files: burstFiles, directories: burstDirectories,
        creationSeconds: seconds(since: writer.first, to: writer.last),
        completeSeconds: done.map { seconds(since: writer.first, to: $0) }, reported: view.burst,
        resyncEvents: view.resyncs, overflows: statusAfter.overflowCount - statusBefore.overflowCount,
        rescans: statusAfter.resyncCount - statusBefore.resyncCount, resets: view.resets, updates: view.updates,
        indexed: indexed)
}

func latencyTable(_ r: LatencyResult) -> String {
    var table = Table(headers: ["files", "p50", "p99", "max", "mean", "timeouts (5 s)"],
                      right: [true, true, true, true, true, true])
    table.add([grouped(r.files), formatMilliseconds(r.p50), formatMilliseconds(r.p99), formatMilliseconds(r.max),
               formatMilliseconds(r.mean), "\(r.timeouts)"])
    return "2. Change-to-notification latency (10k tree, live query at interval 0, create → update adding it)\n"
        + table.render()
}

func burstTable(_ r: BurstResult) -> String {
    var table = Table(headers: ["files", "dirs", "creation", "to complete view", "reported", "in index", "updates",
                                "resets", "resync events", "overflows", "rescans"],
                      right: Array(repeating: true, count: 11))
    table.add([grouped(r.files), "\(r.directories)", formatMilliseconds(r.creationSeconds),
               r.completeSeconds.map(formatMilliseconds) ?? "never", grouped(r.reported), grouped(r.indexed),
               grouped(r.updates), "\(r.resets)", "\(r.resyncEvents)", "\(r.overflows)", "\(r.rescans)"])
    return "3. Burst (10k tree, live query at interval 0; time from the first creation)\n" + table.render()
}
