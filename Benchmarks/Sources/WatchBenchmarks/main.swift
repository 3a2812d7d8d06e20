// WatchBenchmarks: the watcher and the engine on real generated trees (see Tree.swift for the
// layout). 1. our crawl against `find`, the watcher + engine to the first complete answer,
// resident memory per indexed item, the one-shot name query; 2. change-to-notification latency;
// 3. a burst of 100,000 creations. Tables on stdout, progress on stderr, then the goals.
import BenchmarkSupport
import Foundation
import UbiquityWatch

let options = Options.parse(CommandLine.arguments)
let base = FileManager.default.temporaryDirectory.path + "/ubiquity-watchbench-\(getpid())"
Log.progress("trees under \(base) (seed \(options.seed)\(options.keep ? ", kept" : ", removed at the end"))")

func finish(_ code: Int32) -> Never {
    if !options.keep { removeTree(base) }
    exit(code)
}

do {
    try Tree.makeDirectory(base)

    var crawlResults: [CrawlResult] = []
    for size in options.sizes {
        let result = try await runCrawlSection(size: size, base: base, options: options)
        crawlResults.append(result)
        if !options.keep { removeTree(base + "/tree-\(size)") }
    }
    print(crawlTable(crawlResults, runs: options.runs))
    print()

    Log.progress("live sections: generating a 10,000-entry tree")
    let liveTree = try Tree.generate(in: base + "/live-10000", entries: 10_000, seed: options.seed)
    _ = try Crawler().crawl(root: liveTree.root)        // warm the cache
    let (latency, burst) = try await runLiveSections(liveTree)
    print(latencyTable(latency))
    print()
    print(burstTable(burst))
    print()

    // Goals: the crawl ratio at its worst size; memory and query at the largest size run.
    let worstCrawl = crawlResults.max { $0.crawlRatio < $1.crawlRatio }!
    let largest = crawlResults.max { $0.size < $1.size }!
    func verdict(_ met: Bool) -> String { met ? "MET" : "NOT MET" }
    var goals = Table(headers: ["goal", "result", "measured"], right: [false, false, false])
    goals.add(["crawl ≤ 1.5× find", verdict(worstCrawl.crawlRatio <= 1.5),
               String(format: "%.2fx", worstCrawl.crawlRatio) + " (worst, at \(grouped(worstCrawl.size)) entries)"])
    goals.add(["memory ≤ 150 B/item at \(grouped(largest.size))", verdict(largest.bytesPerItem <= 150),
               String(format: "%.0f B/item (%.0f B after malloc_trim)", largest.bytesPerItem, largest.bytesPerItemTrimmed)])
    goals.add(["LIKE 'Item_*' ≤ 5 ms at \(grouped(largest.size))", verdict(largest.query.min <= 0.005),
               formatMilliseconds(largest.query.min) + " (best of 5)"])
    goals.add(["latency p99 ≤ 2 ms", verdict(latency.p99 <= 0.002 && latency.timeouts == 0),
               formatMilliseconds(latency.p99) + " (\(latency.timeouts) timeouts)"])
    goals.add(["burst complete", verdict(burst.complete),
               "\(grouped(burst.reported)) / \(grouped(burst.files)) reported"
                   + (burst.completeSeconds.map { " in " + formatMilliseconds($0) } ?? "")
                   + (burst.resyncEvents > 0 || burst.rescans > 0 ? ", after \(burst.rescans) rescan(s)" : ", no resync")])
    print("goals")
    print(goals.render())
} catch {
    Log.error("WatchBenchmarks failed: \(error)")
    finish(1)
}
finish(0)
