import Testing
import UbiquityPredicate
import UbiquityTesting

/// ``ByteOrder`` against the order it stands in for, `utf8.lexicographicallyPrecedes`: random
/// strings of few letters (so that many share prefixes or are prefixes of one another), with
/// non-ASCII scalars, empty strings and equal ones.
@Suite struct ByteOrderTests {
    @Test func agreesWithTheUTF8ViewsOrder() {
        var random = SplitMix64(seed: 20261127)
        let alphabet: [Character] = ["a", "b", "/", "é", "e\u{301}", "日", "😀", "\u{0}"]
        func text() -> String {
            String((0..<Int.random(in: 0...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        for _ in 0..<5_000 {
            let a = text(), b = Bool.random(using: &random) ? a + text() : text()
            let expected = a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : (a.utf8.elementsEqual(b.utf8) ? 0 : 1)
            #expect(ByteOrder.compare(a, b).signum() == expected, "\(Array(a.utf8)) \(Array(b.utf8))")
            #expect(ByteOrder.precedes(a, b) == (expected < 0))
            #expect(ByteOrder.compare(b, a).signum() == -expected)
        }
    }

    @Test func aPrefixComesFirstAndBytesNotScalarsDecide() {
        #expect(ByteOrder.precedes("/r/a", "/r/a/b"))
        #expect(!ByteOrder.precedes("/r/a/b", "/r/a"))
        #expect(ByteOrder.compare("", "") == 0)
        // "é" as one scalar (C3 A9) after "e" + U+0301 (65 CC 81): bytes, not canonical equivalence.
        #expect(ByteOrder.precedes("e\u{301}", "\u{e9}"))
        #expect(ByteOrder.compare("e\u{301}", "\u{e9}") != 0)
    }
}
