import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The byte order of strings (``PathOrder``) against the obvious one, `lexicographicallyPrecedes`
/// on byte arrays, over seeded random inputs shaped to reach each of its paths: prefixes of
/// one another, long shared runs, every byte value (zero and 0xFF among them), groups just
/// under and over the insertion sort's limit, and the fallback for groups that defeat the pivot.
@Suite("Path order")
struct PathOrderTests {
    /// Sorts `strings` (all agreeing on their first `depth` bytes) and checks the order against
    /// the reference, with the strings end to end and scattered.
    static func check(_ strings: [[UInt8]], from depth: Int = 0, partitionsPerLevel: Int = 2,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        var bytes: [UInt8] = [], ends: [Int] = []
        for string in strings {
            bytes += string
            ends.append(bytes.count)
        }
        let sorted = bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                var order = PathOrder(bytes: bytes, ends: ends)
                order.partitionsPerLevel = partitionsPerLevel
                return order.sorted(from: depth)
            }
        }
        #expect(sorted.sorted() == Array(strings.indices), "a permutation", sourceLocation: sourceLocation)
        // The same strings anywhere in a buffer, given their starts: here backwards, each after
        // a byte that is no part of it.
        var scattered: [UInt8] = [], starts = [Int](repeating: 0, count: strings.count), scatteredEnds = starts
        for (i, string) in strings.enumerated().reversed() {
            scattered.append(0x2F)
            starts[i] = scattered.count
            scattered += string
            scatteredEnds[i] = scattered.count
        }
        let fromStarts = scattered.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                scatteredEnds.withUnsafeBufferPointer { ends in
                    var order = PathOrder(bytes: bytes, starts: starts, ends: ends)
                    order.partitionsPerLevel = partitionsPerLevel
                    return order.sorted(from: depth).map { strings[$0] }
                }
            }
        }
        let expected = strings.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(sorted.map { strings[$0] } == expected, sourceLocation: sourceLocation)
        #expect(fromStarts == expected, sourceLocation: sourceLocation)
    }

    static let awkwardBytes: [UInt8] = [0x00, 0x01, 0x2E, 0x2F, 0x30, 0x61, 0x7F, 0x80, 0xC3, 0xFE, 0xFF]

    static func string(_ random: inout SplitMix64, length: ClosedRange<Int>, alphabet: [UInt8] = awkwardBytes) -> [UInt8] {
        (0..<random.int(length)).map { _ in random.pick(alphabet) }
    }

    @Test func noneAndOne() {
        Self.check([])
        Self.check([[]])
        Self.check([Array("/r/a".utf8)], from: 3)
        Self.check([[], []])
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func randomStringsOfEveryByte(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let strings = (0..<random.int(1...600)).map { _ in Self.string(&random, length: 0...30) }
        Self.check(strings)
        // A small alphabet: long ties, many equal strings.
        Self.check((0..<500).map { _ in Self.string(&random, length: 0...24, alphabet: [0x00, 0xFF]) })
    }

    /// Input already in order is left as it is; input in order but for its last pair, or with
    /// equal strings, or in order only up to a shared prefix longer than a key, is still sorted.
    @Test(arguments: 1...4 as ClosedRange<UInt64>)
    func inputAlreadyInOrderOrAlmost(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let inOrder = (0..<random.int(2...400)).map { _ in Self.string(&random, length: 0...30) }
            .sorted { $0.lexicographicallyPrecedes($1) }
        Self.check(inOrder)
        Self.check(inOrder + inOrder.prefix(1))
        Self.check(Array(inOrder.dropLast(2)) + inOrder.suffix(2).reversed())
        Self.check(inOrder.reversed())
        let shared = Array(repeating: UInt8(ascii: "d"), count: 20)
        Self.check((inOrder.dropFirst() + inOrder.prefix(1)).map { shared + $0 }, from: 20)
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func prefixesOfOneAnother(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let base = Self.string(&random, length: 40...80)
        var strings = (0...base.count).map { Array(base.prefix($0)) }
        // Each prefix also continued by one byte below, at, and above the base's next one.
        for length in 0..<base.count {
            strings.append(Array(base.prefix(length)) + [base[length] &- 1])
            strings.append(Array(base.prefix(length)) + [base[length] &+ 1, random.pick(Self.awkwardBytes)])
        }
        strings.shuffle(using: &random)
        Self.check(strings)
    }

    @Test(arguments: 1...2 as ClosedRange<UInt64>)
    func longSharedPrefixes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let shared = Self.string(&random, length: 4100...4500)
        var strings: [[UInt8]] = []
        for _ in 0..<60 {
            // Two tiers: a shared run beyond 4096 bytes, then another long one for some.
            var string = shared
            if random.chance(0.5) { string += shared.prefix(random.int(0...shared.count)) }
            string += Self.string(&random, length: 0...6, alphabet: [0x01, 0x7F, 0xFF])
            strings.append(string)
        }
        Self.check(strings)
        Self.check(strings, from: shared.count)
        Self.check(strings, from: 4096)
    }

    @Test(arguments: 1...4 as ClosedRange<UInt64>)
    func nearDuplicatesOfOneLength(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let base = Self.string(&random, length: 64...64)
        let strings = (0..<2000).map { _ in
            var string = base
            string[random.int(0...63)] = random.pick(Self.awkwardBytes)
            return string
        }
        Self.check(strings)
    }

    /// Groups that tie on their keys, sized around the insertion sort's limit: each size is sorted
    /// once by insertion and once by partitioning.
    @Test func groupsAroundTheInsertionLimit() {
        var random = SplitMix64(seed: 99)
        let limit = PathOrder.insertionLimit
        for size in [limit - 1, limit, limit + 1, limit + 2, 2 * limit] {
            let head = Array("/same/".utf8) + Self.string(&random, length: 24...24)
            let strings = (0..<size).map { _ in head + Self.string(&random, length: 0...3, alphabet: [0x01, 0x61, 0xFF]) }
            Self.check(strings)
            Self.check(strings, from: 6)
            // Several groups side by side, tied at every length.
            Self.check((0..<4).flatMap { group in strings.map { [UInt8(group)] + $0 } })
        }
    }

    /// Inputs already in order, in reverse order, or all equal: the shapes that defeat a poor
    /// pivot; and every group sent straight to the fallback sort.
    @Test(arguments: 1...3 as ClosedRange<UInt64>)
    func orderedInputsAndTheFallback(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let strings = (0..<1500).map { _ in Array("/r/Item_".utf8) + Self.string(&random, length: 0...20) }
        let sorted = strings.sorted { $0.lexicographicallyPrecedes($1) }
        Self.check(sorted)
        Self.check(sorted.reversed())
        Self.check(Array(repeating: strings[0], count: 300))
        Self.check(strings, partitionsPerLevel: 0)
        Self.check(strings, from: 3, partitionsPerLevel: 0)
    }
}
