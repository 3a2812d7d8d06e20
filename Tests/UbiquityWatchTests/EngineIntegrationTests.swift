import Foundation
import Glibc
import Testing
import UbiquityIndex
import UbiquityPredicate
import UbiquityWatch
import UbiquityTesting

/// The whole engine on real inotify: FileWatcher → WatcherChangeSource → QueryEngine.
@Suite("Engine on real inotify", .serialized, .ownThreads)
struct EngineIntegrationTests {
    /// A temporary container with a running watcher and engine.
    final class LiveContainer {
        let root: String
        let id: ContainerID
        let watcher: FileWatcher
        let engine: QueryEngine
        let runner: Task<Void, Never>

        init(packageTypes: [String: String] = ["gro": "com.example.grocery.package"]) throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("ubq-engine-\(UUID().uuidString)")
            root = base.appendingPathComponent("com.example.live").path
            try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
            id = try ContainerID("com.example.live")
            let descriptor = ContainerDescriptor(id: id, root: root, packageTypes: packageTypes)
            watcher = try FileWatcher(containers: [descriptor])
            engine = QueryEngine(containers: [descriptor], source: WatcherChangeSource(watcher))
            try watcher.start()
            let engine = self.engine
            runner = Task(executorPreference: ThreadPerJobExecutor.shared) { await engine.run() }
        }

        func close() async {
            await watcher.stop()
            runner.cancel()
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: root).deletingLastPathComponent().path)
        }

        func path(_ relative: String) -> String { root + "/" + relative }

        func write(_ relative: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path(relative)))
        }
    }

    func spec(_ text: String, interval: Duration = .zero) throws -> QuerySpecification {
        QuerySpecification(predicate: try MetadataPredicate(parsing: text), sort: [try MetadataSortDescriptor(parsing: "path")],
                           attributes: [.name, .size], batchingInterval: interval)
    }

    /// Reads events until the subscriber's view equals the engine's results for the query,
    /// failing after `timeout`; returns the problems any update had.
    func catchUp(_ view: inout ClientView, _ events: inout QueryEvents.AsyncIterator, _ engine: QueryEngine,
                 _ id: QueryID, timeout: Duration = .seconds(20)) async throws -> [String] {
        var problems: [String] = []
        let deadline = ContinuousClock.now + timeout
        while try await summaryOf(engine.results(id)) != view.summary {
            guard ContinuousClock.now < deadline else {
                problems.append("the subscriber did not catch up within \(timeout)")
                return problems
            }
            guard let event = try await nextEvent(&events, within: 10) else { return problems + ["events ended"] }
            switch event {
            case .update(let delta):
                if let problem = view.apply(delta) {
                    problems.append(problem)
                }
            case .reset(let results, _): view = ClientView(results)
            default: break
            }
        }
        return problems
    }

    @Test func gatheringSeesAFileWrittenJustBefore() async throws {
        let c = try LiveContainer()
        try c.write("Documents/Item_1", "Milk")
        let id = try await c.engine.start(try spec("name LIKE 'Item_*'"))
        let results = try await c.engine.results(id)
        #expect(results.map(\.path) == [c.path("Documents/Item_1")])
        await c.close()
    }

    /// A query started the moment the watcher starts must wait for the initial crawl.
    @Test(arguments: 0..<5)
    func aQueryStartedWithTheWatcherSeesTheWholeInitialCrawl(run: Int) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ubq-initial-\(UUID().uuidString)")
        let root = base.appendingPathComponent("com.example.initial").path
        try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        for i in 0..<500 { try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/Documents/Item_\(i)")) }
        let descriptor = ContainerDescriptor(id: try ContainerID("com.example.initial"), root: root)
        let watcher = try FileWatcher(containers: [descriptor])
        let engine = QueryEngine(containers: [descriptor], source: WatcherChangeSource(watcher))
        try watcher.start()
        let runner = Task(executorPreference: ThreadPerJobExecutor.shared) { await engine.run() }
        let id = try await engine.start(try spec("name LIKE 'Item_*'"))
        #expect(try await engine.results(id).count == 500, "run \(run)")
        await watcher.stop()
        runner.cancel()
    }

    /// A first crawl sent in parts of 16 entries, applied while the walk goes on, with files
    /// created, removed and renamed meanwhile: the first answer is what the disk holds.
    @Test(arguments: 0..<3)
    func aFirstCrawlInPartsWithChangesMeanwhileAnswersExactly(run: Int) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ubq-parts-\(UUID().uuidString)")
        let root = base.appendingPathComponent("com.example.parts").path
        defer { try? FileManager.default.removeItem(at: base) }
        for d in 0..<20 {
            try FileManager.default.createDirectory(atPath: root + "/Documents/d\(d)", withIntermediateDirectories: true)
            for i in 0..<30 { try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/Documents/d\(d)/Item_\(d)_\(i)")) }
        }
        let descriptor = ContainerDescriptor(id: try ContainerID("com.example.parts"), root: root)
        var configuration = FileWatcher.Configuration()
        configuration.crawlPartEntries = 16
        let watcher = try FileWatcher(containers: [descriptor], configuration: configuration)
        let engine = QueryEngine(containers: [descriptor], source: WatcherChangeSource(watcher))
        try watcher.start()
        let runner = Task(executorPreference: ThreadPerJobExecutor.shared) { await engine.run() }
        // While the crawl (and the parts' application) goes on.
        for i in 0..<40 { try Data("y".utf8).write(to: URL(fileURLWithPath: root + "/Documents/d19/Item_new_\(i)")) }
        for i in 0..<30 { #expect(unlink(root + "/Documents/d0/Item_0_\(i)") == 0) }
        #expect(rename(root + "/Documents/d10", root + "/Documents/moved") == 0)
        let id = try await engine.start(try spec("name LIKE 'Item_*'"))
        let answered = Set(try await engine.results(id).map(\.path))
        let onDisk = Set(try FileManager.default.subpathsOfDirectory(atPath: root).filter {
            $0.split(separator: "/").last?.hasPrefix("Item_") == true
        }.map { root + "/" + $0 })
        #expect(onDisk.count == 610)       // 600 files, 40 new, 30 removed
        #expect(answered == onDisk, "run \(run): \(answered.subtracting(onDisk).count) extra, \(onDisk.subtracting(answered).count) missing")
        await watcher.stop()
        runner.cancel()
    }

    @Test func anAtomicSaveIsOneChangeAndARenameCarriesTheOldPath() async throws {
        let c = try LiveContainer()
        try c.write("Documents/Item_1", "Milk")
        let id = try await c.engine.start(try spec("name LIKE 'Item_*'"))
        var events = c.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }

        try c.write("Documents/.Item_1.tmp", "Oat milk")
        #expect(rename(c.path("Documents/.Item_1.tmp"), c.path("Documents/Item_1")) == 0)
        guard let save = try await nextUpdate(&events) else {
            Issue.record("expected an update for the atomic save")
            await c.close()
            return
        }
        #expect(save.added.isEmpty && save.removed.isEmpty)
        #expect(save.changed.map(\.path) == [c.path("Documents/Item_1")])
        #expect(save.changed.first?.values[.size] == .integer(8))

        #expect(rename(c.path("Documents/Item_1"), c.path("Documents/Item_2")) == 0)
        guard let renamed = try await nextUpdate(&events) else {
            Issue.record("expected an update for the rename")
            await c.close()
            return
        }
        #expect(renamed.changed.map(\.oldPath) == [c.path("Documents/Item_1")])
        #expect(renamed.changed.map(\.path) == [c.path("Documents/Item_2")])
        await c.close()
    }

    /// Random real operations; several live queries must always equal a fresh query, and no
    /// update may report something impossible (an unknown removal, a wrong old path).
    @Test(arguments: [UInt64(11), 12, 13])
    func liveEqualsRescanOnRealFiles(seed: UInt64) async throws {
        let c = try LiveContainer()
        var rng = SplitMix64(seed: seed)
        let texts = ["name LIKE 'Item_*'", "size > 3", "TRUEPREDICATE", "name ENDSWITH '.txt' OR isHidden == YES"]
        var ids: [QueryID] = []
        var views: [ClientView] = []
        var iterators: [QueryEvents.AsyncIterator] = []
        for text in texts {
            let id = try await c.engine.start(try spec(text))
            ids.append(id)
            var events = c.engine.events(id).makeAsyncIterator()
            var view = ClientView([])
            for _ in 0..<3 {
                if case .gatheringFinished(let results, _, _, _)? = try await nextEvent(&events) {
                    view = ClientView(results)
                }
            }
            views.append(view)
            iterators.append(events)
        }
        var files: [String] = []
        var directories = ["Documents", "Library"]
        try FileManager.default.createDirectory(atPath: c.path("Library"), withIntermediateDirectories: true)
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        for round in 0..<25 {
            for _ in 0..<(1 + Int(rng.next() % 8)) {
                switch rng.next() % 7 {
                case 0, 1:
                    let name = pick(["Item_", "note", ".tmp", "Item_x"]) + String(rng.next() % 40) + pick(["", ".txt"])
                    let path = pick(directories) + "/" + name
                    try c.write(path, String(repeating: "x", count: Int(rng.next() % 8)))
                    if !files.contains(path) { files.append(path) }
                case 2 where !files.isEmpty:
                    let path = pick(files)
                    try c.write(path, String(repeating: "y", count: Int(rng.next() % 8)))
                case 3 where !files.isEmpty:
                    let path = pick(files)
                    unlink(c.path(path))
                    files.removeAll { $0 == path }
                case 4 where !files.isEmpty:
                    let from = pick(files)
                    let to = pick(directories) + "/" + pick(["Item_r", "moved", "Item_"]) + String(rng.next() % 40)
                    guard !directories.contains(to) else { break }
                    if rename(c.path(from), c.path(to)) == 0 {
                        files.removeAll { $0 == from || $0 == to }
                        files.append(to)
                    }
                case 5:
                    let dir = pick(directories) + "/d" + String(rng.next() % 10)
                    if !directories.contains(dir), !files.contains(dir), dir.split(separator: "/").count < 4 {
                        try FileManager.default.createDirectory(atPath: c.path(dir), withIntermediateDirectories: true)
                        directories.append(dir)
                        try c.write(dir + "/Item_in", "z")          // right after mkdir
                        files.append(dir + "/Item_in")
                    }
                default:
                    let candidates = directories.filter { $0 != "Documents" && $0 != "Library" }
                    if !candidates.isEmpty {
                        let dir = pick(candidates)
                        try FileManager.default.removeItem(atPath: c.path(dir))
                        directories.removeAll { $0 == dir || $0.hasPrefix(dir + "/") }
                        files.removeAll { $0.hasPrefix(dir + "/") }
                    }
                }
            }
            try await c.engine.synchronize()
            for i in ids.indices {
                let problems = try await catchUp(&views[i], &iterators[i], c.engine, ids[i])
                #expect(problems.isEmpty, "seed \(seed) round \(round) \(texts[i]): \(problems)")
                let fresh = await c.engine.currentResults(try spec(texts[i]))
                #expect(views[i].summary == summaryOf(fresh), "seed \(seed) round \(round) \(texts[i])")
            }
        }
        await c.close()
    }

    @Test func aSubscriberThatStopsReadingDuring100kChangesGetsOneCorrectReset() async throws {
        let c = try LiveContainer()
        let id = try await c.engine.start(try spec("name LIKE 'Item_*'"))
        var events = c.engine.events(id).makeAsyncIterator()
        for _ in 0..<3 { _ = try await nextEvent(&events) }
        // 100,000 creations in 100 directories while nobody reads.
        for d in 0..<100 {
            let dir = c.path("Documents/d\(d)")
            #expect(mkdir(dir, 0o755) == 0)
            for i in 0..<1_000 {
                let fd = open(dir + "/Item_\(i)", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                #expect(fd >= 0)
                Glibc.close(fd)
            }
        }
        try await c.engine.synchronize()
        var sawReset = false
        var view = ClientView([])
        while !sawReset {
            guard let event = try await nextEvent(&events, within: 30) else { break }
            switch event {
            case .reset(let results, _):
                view = ClientView(results)
                sawReset = true
            case .update(let delta):
                Issue.record("a subscriber that read nothing got an update of \(delta.count) items instead of a reset")
                return
            default:
                break      // a resync notice if the kernel queue overflowed
            }
        }
        #expect(sawReset)
        #expect(view.items.count == 100_000)
        let fresh = await c.engine.currentResults(try spec("name LIKE 'Item_*'"))
        #expect(view.summary == summaryOf(fresh))
        await c.close()
    }
}
