// Command-line options: `--items N`, `--runs N`, `--help`. No dependencies on purpose.
import BenchmarkSupport
import Foundation


struct Options {
    var items = 1_000_000
    var runs = 5
    var seed: UInt64 = 0x5EED_2026_1122
    /// Run only the cases whose label starts with one of these letters (`--only b`), for profiling.
    var only: Set<Character>?

    static let usage = """
        usage: PredicateBenchmarks [--items N] [--runs N] [--seed N]
          --items N   synthetic items per data set (default 1000000)
          --runs N    timed repetitions per measurement (default 5)
          --seed N    random seed for the synthetic items (default fixed)
          --only LETTERS  run only these cases, e.g. --only b (the baseline always runs)
        """

    /// Parses `CommandLine.arguments`; prints usage and exits on `--help` or a bad flag.
    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments.dropFirst()
        func value(for flag: String) -> UInt64 {
            guard let text = rest.popFirst(), let n = UInt64(text.filter { $0 != "_" && $0 != "," }), n > 0 else {
                fail("\(flag) needs a positive whole number")
            }
            return n
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--items": options.items = Int(value(for: flag))
            case "--runs": options.runs = Int(value(for: flag))
            case "--seed": options.seed = value(for: flag)
            case "--only":
                guard let letters = rest.popFirst(), !letters.isEmpty else { fail("--only needs case letters such as b or bcd") }
                options.only = Set(letters)
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
        Log.error("PredicateBenchmarks: \(message)\n\(usage)")
        exit(64)
    }
}
