// IndexBenchmarks: memory per indexed item and name-index query time, on synthetic trees laid
// out like the watcher's input (100 entries per directory, 10% of names Item_<UUID>), with no
// disk involved. Crawl and latency against the real file system are measured separately.
import BenchmarkSupport
import Foundation
import UbiquityIndex
import UbiquityPredicate

/// A listing of `count` entries: directories of 100 entries, 10% of file names Item_<UUID>.
func syntheticListing(count: Int, seed: UInt64) -> CrawlListing {
    var rng = SplitMix64(state: seed)
    var entries: [CrawlListing.Entry] = []
    entries.reserveCapacity(count)
    let directoryStat = FileStat(kind: .directory, size: 4096, modified: 1_700_000_000_000_000_000, mode: 0o755)
    entries.append(CrawlListing.Entry(parent: -1, name: "Documents", stat: directoryStat))
    var directories: [Int32] = [0]
    var nextDirectory = 0
    var inCurrent = 0
    while entries.count < count {
        let parent = directories[nextDirectory]
        if inCurrent == 100 {
            nextDirectory += 1
            inCurrent = 0
            continue
        }
        inCurrent += 1
        let r = rng.next()
        if r % 100 < 2 {
            entries.append(CrawlListing.Entry(parent: parent, name: "dir\(entries.count)", stat: directoryStat))
            directories.append(Int32(entries.count - 1))
            continue
        }
        let name: String
        if r % 10 == 0 {
            var uuid = ""
            for _ in 0..<4 { uuid += String(rng.next() & 0xFFFF_FFFF, radix: 16, uppercase: true) }
            name = "Item_" + uuid
        } else {
            name = "file\(entries.count)" + [".txt", ".png", ".md", ".json", ""][Int(r % 5)]
        }
        let t = 1_700_000_000_000_000_000 + Int64(r % 1_000_000_000)
        entries.append(CrawlListing.Entry(parent: parent, name: name,
                                          stat: FileStat(kind: .regular, size: Int64(r % 100_000), modified: t, created: t, changed: t)))
    }
    return CrawlListing(root: directoryStat, entries: entries)
}

var sizes = [10_000, 100_000, 1_000_000]
if let i = CommandLine.arguments.firstIndex(of: "--items"), i + 1 < CommandLine.arguments.count,
   let n = Int(CommandLine.arguments[i + 1]) {
    sizes = [n]
}
let container = try ContainerID("com.example.bench")

print("IndexBenchmarks: synthetic trees, 100 entries per directory, 10% Item_* names")
print("items      bytes/item   build (s)   LIKE 'Item_*' query (ms, min of 5)   matches")
for size in sizes {
    let listing = syntheticListing(count: size, seed: 42)
    let before = residentBytes()
    let engine = QueryEngine(containers: [ContainerDescriptor(id: container, root: "/bench")], source: NoSource())
    let start = ContinuousClock.now
    await engine.apply(ChangeBatch(sequence: 1, changes: [.listing(container, [], listing)]))
    let built = ContinuousClock.now - start
    let after = residentBytes()
    let perItem = Double(after - before) / Double(size)
    Log.progress("\(size) items indexed; timing the name-index query")
    var best = Duration.seconds(1000)
    var matches = 0
    let repetitions = ProcessInfo.processInfo.environment["INDEX_BENCH_QUERY_REPETITIONS"].flatMap(Int.init) ?? 5
    for _ in 0..<repetitions {
        let t0 = ContinuousClock.now
        matches = await engine.count(try MetadataPredicate(parsing: "kMDItemFSName LIKE 'Item_*'"))
        best = min(best, ContinuousClock.now - t0)
    }
    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
    print(String(format: "%-10d %10.0f   %9.2f   %34.2f   %7d", size, perItem, seconds(built), seconds(best) * 1000, matches))
    withExtendedLifetime(listing) {}
}

/// No watcher: the benchmark applies batches itself.
struct NoSource: ChangeSource {
    func batches() -> AsyncStream<ChangeBatch> { AsyncStream { $0.finish() } }
    func sync() async throws -> UInt64 { 0 }
}
