import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// A name's bucket in the name index (``NameIndex/bucket(utf8:)``): written in one go, it is the
/// key the rule gives — the first three bytes lowercased when they and the byte after them are
/// ASCII, else the first three characters of the name lowercased — for names of any length, case
/// and script.
@Suite("Name index buckets")
struct NameIndexBucketTests {
    /// The rule as the key was built before it was written in one go, a scalar at a time: the
    /// bytes are looked at up to the one after the key, so that a combining mark there takes the
    /// slow path and stays with the key's last character.
    static func reference(_ name: String) -> String {
        var key = ""
        var count = 0
        for byte in name.utf8 {
            guard byte < 0x80 else { return String(name.lowercased().prefix(NameIndex.bucketLength)) }
            if count == NameIndex.bucketLength { break }
            key.unicodeScalars.append(Unicode.Scalar(byte >= 65 && byte <= 90 ? byte | 0x20 : byte))
            count += 1
        }
        return key
    }

    static func bucket(_ name: String) -> String {
        Array(name.utf8).withUnsafeBufferPointer { NameIndex.bucket(utf8: $0) }
    }

    @Test(arguments: ["", "a", "AB", "Item_0001", "ITEM", "file_1.txt", "Zz9", "@[`{", "abé", "ab\u{301}c",
                      "Éclair", "aÉb", "日本語の名前", "🍎apple", "ÀB", "\u{7F}\u{7F}\u{7F}\u{80}",
                      "abc\u{301}", "Noe\u{308}l", "ABC\u{200D}x", "ab1\u{FE0F}\u{20E3}", "abcdé"])
    func aNameHasTheRulesBucket(name: String) {
        #expect(Self.bucket(name) == Self.reference(name))
        #expect(NameIndex.bucket(name) == Self.reference(name))
    }

    /// A combining mark right after three ASCII characters belongs to the third: the key keeps
    /// it, so that the name's canonically equal spellings share a bucket.
    @Test func aMarkAfterTheKeyStaysWithItsLastCharacter() {
        #expect(Self.bucket("abc\u{301}") == "ab" + "c\u{301}")
        #expect(Self.bucket("Noe\u{308}l") == "no" + "e\u{308}")
        #expect(Self.bucket("Noe\u{308}l") == Self.bucket("Noël"))
    }

    @Test func randomNamesOfEveryScriptHaveTheRulesBucket() {
        var random = SplitMix64(seed: 37)
        for _ in 0..<5_000 {
            let name = NameCodecTests.randomName(length: Int(random.next() % 12), &random)
            #expect(Self.bucket(name) == Self.reference(name), "\(Array(name.utf8))")
        }
    }

    @Test func anASCIIKeyIsTheFirstThreeBytesLowercased() {
        #expect(Self.bucket("ITEM_0001") == "ite")
        #expect(Self.bucket("abcdé") == "abc")
        #expect(Self.bucket("Ab") == "ab")
        #expect(Self.bucket("[Z]") == "[z]")
        #expect(Self.bucket("").isEmpty)
    }
}
