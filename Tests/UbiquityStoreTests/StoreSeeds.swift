import Foundation
import UbiquityTesting

/// The seeds of the store's randomized tests. Every failure names its seed; set UBIQ_STORE_SEED
/// (decimal or 0x hex) to replay one, or to explore others, and UBIQ_STORE_RUNS=N to run N times
/// as many simulations as the suite does by default.
enum StoreSeeds {
    static let base: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["UBIQ_STORE_SEED"] {
            if text.hasPrefix("0x"), let v = UInt64(text.dropFirst(2), radix: 16) { return v }
            if let v = UInt64(text) { return v }
        }
        return 0x5EED_0035_0000_0001
    }()

    /// How many times the default number of runs to do.
    static let scale: Int = ProcessInfo.processInfo.environment["UBIQ_STORE_RUNS"].flatMap { Int($0) }.map { max(1, $0) } ?? 1

    /// The seed of one run of one property.
    static func seed(_ salt: UInt64, _ iteration: Int) -> UInt64 {
        base ^ (salt &* 0x1000_0000_01B3) &+ UInt64(iteration) &* 0x9E37_79B9
    }

    static func describe(_ seed: UInt64) -> String { "seed 0x\(String(seed, radix: 16)) (UBIQ_STORE_SEED=0x\(String(base, radix: 16)))" }
}
