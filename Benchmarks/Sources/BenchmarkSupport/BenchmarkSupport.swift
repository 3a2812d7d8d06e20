// BenchmarkSupport: what every benchmark executable shares — seeded randomness, progress on
// standard error, resident memory and min/median/max. Measurements and tables stay with each benchmark.
import Foundation
import Glibc

/// SplitMix64: small, fast, and the same sequence on every platform for a given seed, so the
/// generated data sets are reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Progress and errors go to standard error, so the tables on standard output stay clean.
public enum Log {
    public static func progress(_ message: String) {
        FileHandle.standardError.write(Data(("… " + message + "\n").utf8))
    }

    public static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// Resident memory of this process, from /proc/self/status (VmRSS, kB).
public func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }
    return 0
}

/// Returns freed heap to the kernel, so VmRSS counts live memory rather than what glibc keeps.
/// (`malloc_trim` is not in the Glibc module: looked up once with `dlsym`.)
public func trimHeap() { _ = mallocTrim?(0) }

private let mallocTrim: (@convention(c) (Int) -> Int32)? = {
    guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
}()

/// min / median / max of some samples (rates or durations).
public struct Stats: Sendable {
    public let min: Double
    public let median: Double
    public let max: Double

    public init(_ samples: [Double]) {
        let sorted = samples.sorted()
        min = sorted.first ?? 0
        max = sorted.last ?? 0
        let mid = sorted.count / 2
        median = sorted.isEmpty ? 0 : (sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2)
    }
}
