import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The name index built at once (``NameIndex/build(_:names:)``, a restore) against the same ids
/// inserted one at a time: every bucket holds the same ids in the same order.
struct NameIndexBuildTests {
    /// ASCII, names beyond the combining marks (decomposed ones among them), a ligature, and an
    /// NFC name beside its NFD spelling with more after either (of `"e\u{301}te\u{301}"` and
    /// `"\u{E9}t\u{E9}58"` Swift 6.3's `String` calls neither smaller; `NameOrder` orders them).
    static let stems = ["file_", "File_", "Item_", "a", "ab", "abc", "abcd", "\u{E9}t\u{E9}", "e\u{301}te\u{301}", "o\u{301}la",
                        "\u{3B1}\u{3B2}", "\u{65E5}\u{672C}", "\u{1F34E}", "Z", "z", "fi\u{301}", "\u{FB01}le",
                        "abc\u{301}", "ABC\u{E9}"]

    static func check(_ names: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let column = NameColumn(names)
        let oneByOne = NameIndex(), built = NameIndex()
        for (i, name) in names.enumerated() { oneByOne.insert(name, ItemID(i), names: column) }
        // Any order in: the build sorts.
        built.build(names.indices.reversed().map { ItemID($0) }, names: column)
        let a = built.contents, b = oneByOne.contents
        for key in Set(a.keys).union(b.keys) where a[key] != b[key] {
            Issue.record("bucket \(key): built \((a[key] ?? []).prefix(12).map { names[Int($0)] }) one by one \((b[key] ?? []).prefix(12).map { names[Int($0)] })", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func sameOrderAsInsertingOneByOne(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        // Many equal names (one name in many directories), ASCII buckets, and buckets sorted
        // as strings (names beyond the combining marks).
        let names = (0..<random.int(1...3_000)).map { _ in
            random.pick(Self.stems) + (random.int(0...1) == 0 ? "" : String(random.int(0...400)))
        }
        Self.check(names)
        Self.check(names.filter { $0.utf8.allSatisfy { $0 < 0x80 } })
    }

    @Test func noneOneAndChunksOfEveryFill() {
        Self.check([])
        Self.check(["x"])
        // More ids than a chunk holds, in one bucket; then inserts and removals after the build.
        let names = (0..<(SortedIDs.chunkLimit * 3)).map { "file_\($0 % 700)" }
        Self.check(names)
        let column = NameColumn(names + ["file_0", "file_9999"])
        let built = NameIndex(), oneByOne = NameIndex()
        built.build(names.indices.map { ItemID($0) }, names: column)
        for (i, name) in names.enumerated() { oneByOne.insert(name, ItemID(i), names: column) }
        for index in [built, oneByOne] {
            index.insert("file_0", ItemID(names.count), names: column)
            index.insert("file_9999", ItemID(names.count + 1), names: column)
            index.remove("file_5", 5, names: column)
        }
        #expect(built.contents == oneByOne.contents)
    }
}
