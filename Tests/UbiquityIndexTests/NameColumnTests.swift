import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// The index's names held as 16-byte slots and a byte arena (``NameColumn``): every name comes
/// back as the same bytes and an equal `String`, whatever its length (short ones in the slot,
/// from 16 bytes in the arena, up to the 255 bytes a file name can have) or script; freed bytes
/// are compacted away; and the name order (``NameOrder``) is Unicode canonical ordering, so the
/// name index answers as `String`'s `==` does.
@Suite("Name column")
struct NameColumnTests {
    /// Names of every length from 0 to 40 bytes, and 254–256, ASCII and not (2-, 3- and 4-byte
    /// characters, so a length is hit by several mixes), NFC and NFD spellings.
    static let samples: [String] = {
        var out: [String] = []
        for length in Array(0...40) + [200, 254, 255, 256] {
            out.append(String(repeating: "a", count: length))
            out.append(String((0..<length).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) }))
            if length >= 2 { out.append("é" + String(repeating: "x", count: length - 2)) }
            if length >= 3 { out.append("€" + String(repeating: "y", count: length - 3)) }
            if length >= 4 { out.append("😀" + String(repeating: "z", count: length - 4)) }
            if length >= 3 { out.append("e\u{301}" + String(repeating: "x", count: length - 3)) }
        }
        return out
    }()

    @Test func everyNameComesBackAsTheSameBytes() {
        var column = NameColumn()
        for name in Self.samples { column.append(name) }
        #expect(column.count == Self.samples.count)
        column.withReader { reader in
            for (i, name) in Self.samples.enumerated() {
                #expect(Array(column[i].utf8) == Array(name.utf8), "name #\(i) of \(name.utf8.count) bytes")
                #expect(Array(reader[i].utf8) == Array(name.utf8))
                #expect(column.withUTF8(i) { Array($0) } == Array(name.utf8))
                var appended: [UInt8] = [1]
                reader.appendUTF8(i, to: &appended)
                #expect(appended == [1] + Array(name.utf8))
            }
        }
    }

    /// A name appended as its bytes (a restore's) is stored as the same name appended as a
    /// `String`: the same slots, the same arena bytes, the same name back.
    @Test func aNameAppendedAsBytesIsStoredAsItsString() {
        var asStrings = NameColumn(), asBytes = NameColumn()
        for name in Self.samples {
            asStrings.append(name)
            Array(name.utf8).withUnsafeBufferPointer { asBytes.append(utf8: $0) }
        }
        #expect(Array(asBytes.slots) == Array(asStrings.slots))
        #expect(asBytes.bytes.liveBytes == asStrings.bytes.liveBytes)
        for (i, name) in Self.samples.enumerated() { #expect(asBytes[i] == name, "name #\(i)") }
    }

    /// A name of up to 15 bytes stays in its slot (no arena bytes); from 16 on it goes to the arena.
    @Test(arguments: [0, 1, 7, 8, 14, 15, 16, 17, 31, 255])
    func namesUpTo15BytesStayInTheSlot(length: Int) throws {
        let name = String(repeating: "n", count: length)
        let slot = NameSlot(short: name)
        #expect((slot != nil) == (length <= 15))
        if let slot { #expect(slot.isShort && slot.shortName == name) }
        var column = NameColumn()
        column.append(name)
        #expect(column.bytes.liveBytes == (length <= 15 ? 0 : length))
        #expect(column[0] == name)
    }

    /// A short name that came out of a bigger string's storage (a substring copied into a
    /// native string with room to spare) is still held in its slot.
    @Test func aShortNameFromALargeStringIsHeldInTheSlot() throws {
        var big = String(repeating: "q", count: 100)
        big.removeLast(90)
        #expect(big.utf8.count == 10)
        let slot = try #require(NameSlot(short: big))
        #expect(slot.shortName == big)
    }

    @Test func replacedAndRemovedNamesAreCompactedOnceTheyOutweighTheLiveOnes() {
        var column = NameColumn()
        let long = { (n: Int) in "a long name, number \(n), over fifteen bytes" }
        for n in 0..<1000 { column.append(long(n)) }
        let perName = long(0).utf8.count
        // Replace each name many times: over 1 MiB freed and more than the live bytes.
        let rounds = (NameColumn.compactionFloor / (1000 * perName)) + 2
        for round in 1...rounds {
            for n in 0..<1000 { column[n] = long(n + round * 1000) }
        }
        #expect(column.bytes.freedBytes <= Swift.max(column.bytes.liveBytes, NameColumn.compactionFloor))
        #expect(column.bytes.allocatedBytes <= 2 * column.bytes.liveBytes + NameColumn.compactionFloor + 2 * NameBytes.chunkSize)
        for n in 0..<1000 { #expect(column[n] == long(n + rounds * 1000)) }
        column[3] = ""
        #expect(column[3] == "")
        #expect(column.bytes.liveBytes == 999 * long(rounds * 1000).utf8.count)
    }

    /// A copy of the column (a snapshot) keeps its names while the original is written: its
    /// arena chunk is copied before a write, never changed under it.
    @Test func aCopyKeepsItsNamesWhileTheOriginalChanges() {
        var column = NameColumn(Self.samples)
        let copy = column
        for i in 0..<column.count { column[i] = "renamed to something long, #\(i)" }
        for n in 0..<20_000 { column.append("appended after the copy, #\(n)") }
        for (i, name) in Self.samples.enumerated() { #expect(Array(copy[i].utf8) == Array(name.utf8)) }
        #expect(column[5] == "renamed to something long, #5")
    }

    /// ``NameOrder`` is Unicode canonical ordering: the order of the names' NFC forms' bytes
    /// (normalized here by Foundation, not by the standard library `NameOrder` uses), equal exactly
    /// when `String`'s `==` says so, for every pair of names, ASCII or not, random bytes and NFC/NFD
    /// spellings among them.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func nameOrderIsCanonicalOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet: [String] = ["a", "b", "B", "z", "_", ".", "~", "0", "é", "e\u{301}", "É", "ß", "€", "😀", "\u{7F}", "\u{80}", " ",
                                  "\u{2FF}", "\u{300}", "\u{212A}", "K", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "\u{AC01}",
                                  "Å", "A\u{30A}", "\u{212B}", "α", "Ω", "\u{3A9}", "\u{2126}", "ι", "\u{345}", "\u{374}", "\u{2B9}",
                                  "И", "\u{306}", "Й", "か", "\u{3099}", "が", "カ", "\u{309A}", "中", "\u{F900}", "🙂", "\u{1F3FB}",
                                  "\u{301}", "\u{323}", "\u{E01}", "\u{E48}"]
        var names = Self.samples.filter { $0.utf8.count < 40 }
        for _ in 0..<600 {
            let length = Int(random.next() % 8)
            names.append((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined())
        }
        // Pairs sharing a prefix: the order is decided where they part.
        for _ in 0..<200 {
            let base = (0..<Int(random.next() % 4)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            for _ in 0..<2 {
                names.append(base + (0..<Int(random.next() % 3)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined())
            }
        }
        for _ in 0..<100 {
            // Random bytes, made valid UTF-8 as a name from the kernel is (invalid bytes are replaced).
            let bytes = (0..<Int(random.next() % 24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            names.append(String(decoding: bytes, as: UTF8.self))
        }
        for a in names {
            var a = a
            for b in names.prefix(150) + names.suffix(500) {
                var b = b
                let expected = CanonicalOrder.compare(a, b)
                let got = a.withUTF8 { x in b.withUTF8 { y in NameOrder.compare(x, y, bIsSimple: NameOrder.isBelowCombiningMarks(y)) } }
                #expect(got.signum() == expected, "\(Array(a.utf8)) vs \(Array(b.utf8))")
                #expect((expected == 0) == CanonicalOrder.stringsEqual(a, b), "\(Array(a.utf8)) vs \(Array(b.utf8))")
            }
        }
    }

    /// The name index answers exact and prefix lookups over names of every length and script
    /// as a filter of all the names with `String` comparison does.
    ///
    /// Decomposed spellings included: of `é` + 198 `x` and `e` + U+0301 + 197 `x` `String`'s `<`
    /// calls neither smaller, yet they are not `==`; the index orders them by their NFC forms.
    @Test func theNameIndexAnswersAsAStringFilterDoes() {
        var tree = TreeBuilder()
        let names = Array(Set(Self.samples.filter { !$0.isEmpty && !$0.contains("/") }))
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(names.map { "Documents/" + $0 })])
        for probe in names.prefix(60) + ["a", "aa", "é", "e\u{301}", "€y", "😀"] {
            let exact = Set(index.candidates(for: NameHint([.exact(probe)])).map { index.name($0) })
            #expect(exact == Set(names.filter { $0 == probe }), "exact \(probe)")
            // Prefixes over ASCII names only: a name whose next character after the prefix is a
            // combining mark starts with it for the index, not for `hasPrefix` (NameIndex).
            let isASCII = { (name: String) in name.utf8.allSatisfy { $0 < 0x80 } }
            let prefixed = Set(index.candidates(for: NameHint([.prefix(probe)])).map { index.name($0) }.filter(isASCII))
            #expect(prefixed == Set(names.filter { isASCII($0) && $0.hasPrefix(probe) }), "prefix \(probe)")
        }
    }
}
