import Foundation
import Testing
@testable import UbiquityPredicate
import UbiquityTesting

/// The predicate module normalises with the standard library's NFC and NFD. The reference is
/// Python's `unicodedata`, not Foundation: Foundation's NFC leaves U+AC00 U+11A8 apart, where
/// Unicode composes them to U+AC01 (as Python and the standard library do). Foundation's NFD is
/// the standard library's.
@Suite(.ownThreads) struct CanonicalNormalizationTests {
    /// Scalars whose normalisation is not the identity, or interacts: precomposed and combining
    /// Latin, combining classes to reorder, Hangul syllables and jamo, singletons (Ångström and
    /// Kelvin signs, Ohm), composition exclusions (U+0958, U+2ADC, U+1D15E), compatibility
    /// characters NFC and NFD leave alone, CJK, emoji, a joiner and ASCII.
    ///
    /// Left out: the four starters that decompose to combining marks (U+0344, U+0F73, U+0F75,
    /// U+0F81). After them the standard library's NFD, like Foundation's before it, does not put
    /// a following mark of a higher class back in order (`é` U+0F73 gives e U+0301 U+0F71 U+0F72;
    /// Unicode says e U+0F71 U+0F72 U+0301). Unicode itself advises against using them.
    static let alphabet: [Unicode.Scalar] = [
        "a", "e", "A", "o", "u", "i", "k", " ", "é", "É", "ö", "ñ", "ǖ", "ẞ", "ß", "İ", "ı",
        "\u{0301}", "\u{0300}", "\u{0308}", "\u{0323}", "\u{0327}", "\u{031B}", "\u{0345}", "\u{05B0}",
        "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "\u{AC01}", "\u{D7A3}",
        "\u{212B}", "\u{212A}", "\u{2126}", "\u{FB01}", "\u{2460}", "\u{FF21}", "\u{0958}", "\u{1E9B}",
        "\u{1D15E}", "\u{2ADC}", "漢", "\u{1F1EB}", "\u{1F600}", "\u{200D}",
    ]

    /// Reads lists of code points (JSON), writes their NFD and NFC as lists of code points.
    static let referenceProgram = """
        import json, sys, unicodedata
        out = []
        for points in json.load(sys.stdin):
            text = "".join(map(chr, points))
            out.append([[ord(c) for c in unicodedata.normalize(form, text)] for form in ("NFD", "NFC")])
        json.dump(out, sys.stdout)
        """

    @Test("NFD and NFC agree with Python's unicodedata on random text")
    func agreesWithPython() throws {
        var rng = SplitMix64(seed: 0x4E46_4344_2026_1124)
        let texts: [[UInt32]] = (0..<20_000).map { _ in
            (0..<rng.int(0...8)).map { _ in rng.pick(Self.alphabet).value }
        }
        let result = try BuiltExecutable(path: "/usr/bin/env")
            .run(["python3", "-c", Self.referenceProgram], stdin: try JSONEncoder().encode(texts), deadline: 60)
        try #require(result.status == 0, "python3 failed: \(result.stderr)")
        let reference = try JSONDecoder().decode([[[UInt32]]].self, from: Data(result.stdout.utf8))
        try #require(reference.count == texts.count)
        var mismatches: [String] = []
        for (points, expected) in zip(texts, reference) {
            let text = String(String.UnicodeScalarView(points.map { Unicode.Scalar($0)! }))
            let nfd = text.canonicallyDecomposedScalars.map(\.value)
            let nfc = text.canonicallyComposed.unicodeScalars.map(\.value)
            if nfd != expected[0] { mismatches.append("NFD of \(points.map { String($0, radix: 16) }): \(nfd) ≠ \(expected[0])") }
            if nfc != expected[1] { mismatches.append("NFC of \(points.map { String($0, radix: 16) }): \(nfc) ≠ \(expected[1])") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }

    @Test("examples: é both ways, Hangul, the Ångström sign, combining classes reordered")
    func examples() {
        #expect(Array("e\u{301}".canonicallyComposed.unicodeScalars) == ["\u{E9}"])
        #expect(Array("\u{E9}".canonicallyDecomposedScalars) == ["e", "\u{301}"])
        #expect(Array("\u{AC01}".canonicallyDecomposedScalars) == ["\u{1100}", "\u{1161}", "\u{11A8}"])
        #expect(Array("\u{212B}".canonicallyComposed.unicodeScalars) == ["\u{C5}"])
        #expect(Array("a\u{301}\u{323}".canonicallyDecomposedScalars) == ["a", "\u{323}", "\u{301}"])
        #expect(Array("u\u{F73}\u{308}".canonicallyComposed.unicodeScalars) == ["\u{FC}", "\u{F71}", "\u{F72}"])
    }
}
