import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// A name's bucket in the name index (``NameIndex/bucket(utf8:)``): written in one go, it is the
/// key the rule gives — the first three bytes lowercased when they are ASCII, else the first three
/// characters of the name lowercased — for names of any length, case and script.
@Suite("Name index buckets")
struct NameIndexBucketTests {
    /// The rule, a scalar at a time, as the key was built before it was written in one go.
    static func reference(_ name: String) -> String {
        let bytes = Array(name.utf8)
        var key = ""
        for byte in bytes.prefix(NameIndex.bucketLength) {
            guard byte < 0x80 else { return String(name.lowercased().prefix(NameIndex.bucketLength)) }
            key.unicodeScalars.append(Unicode.Scalar(byte >= 65 && byte <= 90 ? byte | 0x20 : byte))
        }
        return key
    }

    static func bucket(_ name: String) -> String {
        Array(name.utf8).withUnsafeBufferPointer { NameIndex.bucket(utf8: $0) }
    }

    @Test(arguments: ["", "a", "AB", "Item_0001", "ITEM", "file_1.txt", "Zz9", "@[`{", "abé", "ab\u{301}c",
                      "Éclair", "aÉb", "日本語の名前", "🍎apple", "ÀB", "\u{7F}\u{7F}\u{7F}\u{80}"])
    func aNameHasTheRulesBucket(name: String) {
        #expect(Self.bucket(name) == Self.reference(name))
        #expect(NameIndex.bucket(name) == Self.reference(name))
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
        #expect(Self.bucket("Ab") == "ab")
        #expect(Self.bucket("[Z]") == "[z]")
        #expect(Self.bucket("").isEmpty)
    }
}
