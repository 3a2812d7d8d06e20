import Testing
@testable import UbiquityIndex

/// The child tables' hash (``NameHash``): SipHash-1-3, word by word, keyed per process.
@Suite("Name hash")
struct NameHashTests {
    /// Bytes `0..<count` of a fixed pattern.
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } }

    /// SipHash-1-3 under the key (0, 0): what the standard library's `Hasher` gives for the same
    /// bytes when its seed is zero (a process started with `SWIFT_DETERMINISTIC_HASHING=1`),
    /// taken from it once. Lengths around each word's edge, and a long name's.
    static let knownAnswers: [(count: Int, hash: Int)] = [
        (0, -3_315_872_660_926_475_476), (1, 2_743_904_303_020_950_620), (7, -2_345_408_073_794_815_702),
        (8, 1_425_634_811_386_115_331), (9, -2_326_694_711_384_720_567), (15, -4_703_379_835_886_144_379),
        (16, 6_989_909_122_370_091_394), (17, -431_573_916_801_938_519), (130, -5_093_988_955_409_062_320),
    ]

    @Test("is SipHash-1-3: the standard library's answers under a zero key, at every word edge")
    func matchesTheStandardLibrarysSipHash() {
        for (count, expected) in Self.knownAnswers {
            let got = Self.bytes(count).withUnsafeBufferPointer { NameHash.hash($0, key: NameHash.Key(k0: 0, k1: 0)) }
            #expect(got == expected, "\(count) bytes")
        }
    }

    @Test("reads a name wherever it starts: the same bytes at any alignment hash the same")
    func anyAlignment() {
        let name = Self.bytes(61)
        let key = NameHash.Key(k0: 0x0123_4567_89ab_cdef, k1: 0xfedc_ba98_7654_3210)
        let expected = name.withUnsafeBufferPointer { NameHash.hash($0, key: key) }
        for shift in 1..<8 {
            let padded = [UInt8](repeating: 0xee, count: shift) + name
            let got = padded.withUnsafeBufferPointer { NameHash.hash(UnsafeBufferPointer(rebasing: $0[shift...]), key: key) }
            #expect(got == expected, "shifted by \(shift)")
        }
    }

    @Test("depends on the key: the same names under another key hash otherwise")
    func dependsOnTheKey() {
        let a = NameHash.Key(k0: 1, k1: 2), b = NameHash.Key(k0: 1, k1: 3)
        var same = 0
        for count in 0..<64 {
            let name = Self.bytes(count)
            let (x, y) = name.withUnsafeBufferPointer { (NameHash.hash($0, key: a), NameHash.hash($0, key: b)) }
            if x == y { same += 1 }
        }
        #expect(same == 0)
        #expect(NameHash.key.k0 != 0 || NameHash.key.k1 != 0)
    }

    @Test("a name's length is part of its hash: trailing zero bytes change it")
    func lengthCounts() {
        let key = NameHash.Key(k0: 7, k1: 9)
        let hashes = Set((0..<24).map { count in
            [UInt8](repeating: 0, count: count).withUnsafeBufferPointer { NameHash.hash($0, key: key) }
        })
        #expect(hashes.count == 24)
    }
}
