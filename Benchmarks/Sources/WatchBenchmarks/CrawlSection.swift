// Section 1: our crawl against `find`, the watcher + engine to the first complete answer,
// resident memory per indexed item, and the one-shot name query on the loaded engine.
import BenchmarkSupport
import UbiquityIndex
import UbiquityPredicate
import UbiquityWatch

let containerID = try! ContainerID("com.example.bench")
let itemPredicate = "kMDItemFSName LIKE 'Item_*'"

func descriptor(_ tree: GeneratedTree) -> ContainerDescriptor {
    ContainerDescriptor(id: containerID, root: tree.root, packageTypes: ["gro": "com.example.grocery.package"])
}

struct CrawlResult {
    let size: Int
    let tree: GeneratedTree
    let crawledEntries: Int
    let crawl: Stats
    let find: Stats
    let firstAnswer: Stats
    let answerMatches: Int
    let items: Int
    /// VmRSS after the first answer minus before the watcher existed, per indexed item.
    let bytesPerItem: Double
    /// The same after `malloc_trim(0)`: live memory, without what glibc keeps cached.
    let bytesPerItemTrimmed: Double
    let query: Stats
    let queryMatches: Int

    var crawlRatio: Double { crawl.median / find.median }
    var answerRatio: Double { firstAnswer.median / find.median }
}

/// One measurement of "watcher created → first complete answer".
struct FirstAnswer {
    var seconds: Double
    var matches: Int
    var items: Int
    var rssBefore: Int
    var rssAfter: Int
    var rssTrimmed: Int
    var queryTimes: [Double]
    var queryMatches: Int
}

/// Creates a watcher and an engine on `tree`, starts the `Item_*` query and reads its
/// `gatheringFinished`; then (optionally) times one-shot counts; then stops everything.
func watchToFirstAnswer(_ tree: GeneratedTree, queryRuns: Int) async throws -> FirstAnswer {
    let predicate = try MetadataPredicate(parsing: itemPredicate)
    trimHeap()
    let rssBefore = residentBytes()
    let start = nowNanoseconds()
    let watcher = try FileWatcher(containers: [descriptor(tree)])
    try watcher.start()
    let engine = QueryEngine(containers: [descriptor(tree)], source: WatcherChangeSource(watcher))
    let runner = Task { await engine.run() }
    let id = try await engine.start(QuerySpecification(predicate: predicate, scopes: [.documents]))
    var matches = -1
    for await event in engine.events(id) {
        if case .gatheringFinished(let results, _, _, _) = event {
            matches = results.count
            break
        }
    }
    let elapsed = seconds(since: start)
    let items = await engine.itemCount
    let rssAfter = residentBytes()
    trimHeap()
    let rssTrimmed = residentBytes()

    var queryTimes: [Double] = []
    var queryMatches = 0
    for _ in 0..<queryRuns {
        let t0 = nowNanoseconds()
        queryMatches = await engine.count(predicate)
        queryTimes.append(seconds(since: t0))
    }

    try await engine.stop(id)
    await engine.release(id)
    await watcher.stop()
    await runner.value
    return FirstAnswer(seconds: elapsed, matches: matches, items: items, rssBefore: rssBefore, rssAfter: rssAfter,
                       rssTrimmed: rssTrimmed, queryTimes: queryTimes, queryMatches: queryMatches)
}

func runCrawlSection(size: Int, base: String, options: Options) async throws -> CrawlResult {
    Log.progress("size \(grouped(size)): generating the tree")
    let t0 = nowNanoseconds()
    let tree = try Tree.generate(in: base + "/tree-\(size)", entries: size, seed: options.seed)
    Log.progress("size \(grouped(size)): \(grouped(tree.entries)) entries, \(grouped(tree.directories)) directories, "
                 + "\(tree.packages) packages, \(grouped(tree.itemNames)) Item_* files in "
                 + String(format: "%.1f s", seconds(since: t0)))

    // Warm the cache (and the code) once, untimed.
    var crawledEntries = try Crawler().crawl(root: tree.root).listing.entries.count
    _ = try timeFind(tree.root)
    guard crawledEntries == tree.entries else {
        throw BenchmarkError("the crawl listed \(crawledEntries) entries, the generator made \(tree.entries)")
    }

    var crawlTimes: [Double] = [], findTimes: [Double] = []
    for run in 1...options.runs {
        Log.progress("size \(grouped(size)): crawl and find, run \(run)/\(options.runs)")
        let start = nowNanoseconds()
        let result = try Crawler().crawl(root: tree.root)
        crawlTimes.append(seconds(since: start))
        crawledEntries = result.listing.entries.count
        findTimes.append(try timeFind(tree.root))
    }

    var answers: [FirstAnswer] = []
    for run in 1...options.runs {
        Log.progress("size \(grouped(size)): watcher + engine to the first answer, run \(run)/\(options.runs)")
        let answer = try await watchToFirstAnswer(tree, queryRuns: run == 1 ? 5 : 0)
        guard answer.matches == tree.itemNames else {
            throw BenchmarkError("the first answer had \(answer.matches) Item_* results, the tree has \(tree.itemNames)")
        }
        answers.append(answer)
    }
    // Memory and the one-shot query from the first run: the heap was trimmed just before it and
    // no earlier engine's freed memory is mixed in.
    let first = answers[0]
    return CrawlResult(
        size: size, tree: tree, crawledEntries: crawledEntries, crawl: Stats(crawlTimes), find: Stats(findTimes),
        firstAnswer: Stats(answers.map(\.seconds)), answerMatches: first.matches, items: first.items,
        bytesPerItem: Double(first.rssAfter - first.rssBefore) / Double(max(first.items, 1)),
        bytesPerItemTrimmed: Double(first.rssTrimmed - first.rssBefore) / Double(max(first.items, 1)),
        query: Stats(first.queryTimes), queryMatches: first.queryMatches)
}

func crawlTable(_ results: [CrawlResult], runs: Int) -> String {
    var table = Table(headers: ["size", "measurement", "min", "median", "max", "÷ find", "detail"],
                      right: [true, false, true, true, true, true, false])
    for r in results {
        let s = grouped(r.size)
        table.add([s, "Crawler().crawl(root:)", formatMilliseconds(r.crawl.min), formatMilliseconds(r.crawl.median),
                   formatMilliseconds(r.crawl.max), String(format: "%.2fx", r.crawlRatio),
                   "\(grouped(r.crawledEntries)) entries, \(grouped(r.tree.directories)) directories"])
        table.add(["", "find -printf '%s %T@\\n'", formatMilliseconds(r.find.min), formatMilliseconds(r.find.median),
                   formatMilliseconds(r.find.max), "1.00x", "child process, output to /dev/null"])
        table.add(["", "watcher+engine → 1st answer", formatMilliseconds(r.firstAnswer.min),
                   formatMilliseconds(r.firstAnswer.median), formatMilliseconds(r.firstAnswer.max),
                   String(format: "%.2fx", r.answerRatio), "\(grouped(r.answerMatches)) Item_* results"])
        table.add(["", "memory per indexed item", "", String(format: "%.0f B", r.bytesPerItem), "", "",
                   String(format: "VmRSS +%.1f MB over ", r.bytesPerItem * Double(r.items) / 1_048_576) + grouped(r.items)
                       + String(format: " items (%.0f B/item after malloc_trim)", r.bytesPerItemTrimmed)])
        table.add(["", "one-shot LIKE 'Item_*'", formatMilliseconds(r.query.min), formatMilliseconds(r.query.median),
                   formatMilliseconds(r.query.max), "", "engine.count, 5 runs, \(grouped(r.queryMatches)) matches"])
    }
    return "1. Crawl, first answer, memory, query (warm cache, \(runs) runs each; one-shot query 5 runs)\n"
        + table.render()
}
