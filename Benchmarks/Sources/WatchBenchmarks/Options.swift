// Command-line options: `--sizes`, `--runs`, `--seed`, `--keep`, `--help`. No dependencies on purpose.
import BenchmarkSupport
import Foundation

struct Options {
    var sizes = [10_000, 100_000]
    var runs = 3
    var seed: UInt64 = 0x5EED_2026_1122
    var keep = false

    static let usage = """
        usage: WatchBenchmarks [--sizes N,N,...] [--runs N] [--seed N] [--keep]
          --sizes N,N,...  tree sizes (entries on disk) for the crawl section (default 10000,100000;
                           add 1000000 for the full run, whose generation takes a few minutes)
          --runs N         timed runs per crawl measurement (default 3)
          --seed N         seed for the generated trees (default fixed, so trees are reproducible)
          --keep           leave the generated trees in the temporary directory
          -h, --help       this text
        Sections: 1. crawl vs find, watcher+engine to the first answer, memory per item, one-shot
        query; 2. change-to-notification latency (1,000 files, 10k tree); 3. a burst of 100,000
        creations in 100 directories. Tables go to stdout, progress to stderr.
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments.dropFirst()
        func number(_ text: String?, _ flag: String) -> UInt64 {
            guard let text, let n = UInt64(text.filter { $0 != "_" }), n > 0 else {
                fail("\(flag) needs a positive whole number")
            }
            return n
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--sizes":
                guard let list = rest.popFirst() else { fail("--sizes needs a list such as 10000,100000") }
                options.sizes = list.split(separator: ",").map { Int(number(String($0), "--sizes")) }
                guard options.sizes.allSatisfy({ $0 >= 1_000 }) else { fail("--sizes: each size must be at least 1000") }
            case "--runs": options.runs = Int(number(rest.popFirst(), flag))
            case "--seed": options.seed = number(rest.popFirst(), flag)
            case "--keep": options.keep = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown argument '\(flag)'")
            }
        }
        return options
    }

    private static func fail(_ message: String) -> Never {
        Log.error("WatchBenchmarks: \(message)\n\(usage)")
        exit(64)
    }
}
