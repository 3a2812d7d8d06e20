import Foundation

/// p50 and p99 of latency samples, in milliseconds (nearest rank).
struct Percentiles: Sendable {
    let p50: Double
    let p99: Double
    let count: Int

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
            return sorted[index]
        }
        p50 = rank(0.50)
        p99 = rank(0.99)
        count = sorted.count
    }

    /// `| what | n | p50 | p99 |`.
    func row(_ what: String) -> String {
        "| \(what) | \(count) | \(String(format: "%.2f", p50)) | \(String(format: "%.2f", p99)) |"
    }
}
