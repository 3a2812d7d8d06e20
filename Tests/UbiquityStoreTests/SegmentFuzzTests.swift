import Testing
@testable import UbiquityStore
import UbiquityTesting
import UbiquityErrors

@Suite("Decoding arbitrary bytes never traps: random files, and valid segments mutated and resealed")
struct SegmentFuzzTests {
    static let codes: Set<StoreErrorCode> = [.segmentTruncated, .segmentChecksum, .segmentFutureFormat, .segmentNeedsUpgrade,
                                             .segmentOversized, .segmentMalformed]

    /// Decodes `bytes`; a segment that reads must write back to a segment that reads the same.
    func decode(_ bytes: [UInt8], _ seed: UInt64) {
        do {
            let segment = try Segment(decoding: bytes, limits: SegmentLimits(maxSegmentBytes: 1 << 16, maxChanges: 64, maxValueBytes: 256))
            #expect(try Segment(decoding: segment.encoded()) == segment, "\(StoreSeeds.describe(seed))")
        } catch {
            #expect(Self.codes.contains(error.code), "\(StoreSeeds.describe(seed)): \(error)")
        }
    }

    @Test("Random bytes, with and without a valid header in front")
    func randomBytes() {
        for iteration in 0 ..< 2_000 {
            let seed = StoreSeeds.seed(1, iteration)
            var rng = SplitMix64(seed: seed)
            var bytes = (0 ..< rng.int(0...200)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if rng.chance(0.7) {
                bytes = Array("UBQS".utf8) + [1, 0, 0, 0] + [0, 0, 0, 0] + [1, 0, 0, 0] + [UInt8](repeating: 0, count: 12) + [3] + Array("abc".utf8) + bytes
                bytes = SegmentFormatTests.resealed(bytes + [0, 0, 0, 0]) { _ in }
            }
            decode(bytes, seed)
        }
    }

    @Test("Valid segments with bytes changed, inserted and removed, then resealed as a hostile device would")
    func mutated() {
        let original = SegmentFormatTests.everything.encoded()
        for iteration in 0 ..< 5_000 {
            let seed = StoreSeeds.seed(2, iteration)
            var rng = SplitMix64(seed: seed)
            let bytes = SegmentFormatTests.resealed(original) { bytes in
                for _ in 0 ..< rng.int(1...4) {
                    // Leave the fixed header alone (its cases have their own test); work on the body.
                    let at = rng.int(35 ... bytes.count - 5)
                    switch rng.int(0...3) {
                    case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                    case 1: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                    case 2: bytes.remove(at: at)
                    default: bytes[at] = rng.pick([0x00, 0x7F, 0x80, 0xFF])
                    }
                }
            }
            decode(bytes, seed)
        }
    }
}
