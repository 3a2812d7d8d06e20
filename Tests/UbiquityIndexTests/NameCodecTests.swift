import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// Long names compressed (``NameCodec`` and ``NameColumn``): every name comes back as its bytes,
/// whatever its script and length, with escaped bytes and without; a column stores names as they
/// are until its table is trained and compressed after; names compare and look up as they did
/// stored whole; a copy of the column (a snapshot) shares the table and keeps its names.
@Suite("Name codec")
struct NameCodecTests {
    /// Characters of many scripts and widths (1–4 bytes), combining marks among them.
    static let alphabet: [String] = ["a", "b", "z", "A", "Q", "0", "7", "-", "_", ".", " ", "~", "é", "ü", "ß", "ñ", "ø",
                                     "ł", "α", "λ", "Ω", "ж", "щ", "Й", "\u{301}", "日", "本", "語", "文", "か", "カ", "한",
                                     "中", "\u{F900}", "€", "🍎", "🥕", "🧀", "😀", "\u{1F3FB}", "\u{10FFFF}", "\u{7F}", "\u{80}"]

    /// A name of exactly `length` bytes (0–255) of random characters of ``alphabet``.
    static func randomName(length: Int, _ random: inout SplitMix64) -> String {
        var name = ""
        var size = 0
        while size < length {
            var c = alphabet[Int(random.next() % UInt64(alphabet.count))]
            if size + c.utf8.count > length { c = "x" }
            name += c
            size += c.utf8.count
        }
        return name
    }

    /// Names like the benchmark's long shape: a numbered prefix and 60–200 bytes of many scripts.
    static func longNames(_ count: Int, seed: UInt64, from first: Int = 0) -> [String] {
        var random = SplitMix64(seed: seed)
        return (first..<(first + count)).map { k in
            let prefix = (k % 10 == 0 ? "Item_" : "") + String(repeating: "0", count: 8 - String(k).count) + "\(k)-"
            let length = 60 + Int(random.next() % 141)
            return prefix + randomName(length: length - prefix.utf8.count, &random)
        }
    }

    static func trained(_ names: [String]) -> NameCodec {
        var bytes: [UInt8] = [], ends: [Int] = []
        for name in names {
            bytes.append(contentsOf: name.utf8)
            ends.append(bytes.count)
        }
        return NameCodec(trainingOn: bytes, ends: ends)
    }

    static func roundTrip(_ codec: NameCodec, _ name: [UInt8]) -> (encoded: [UInt8], decoded: [UInt8]) {
        var encoded = [UInt8](repeating: 0, count: NameCodec.encodeCapacity)
        let count = name.withUnsafeBufferPointer { name in
            encoded.withUnsafeMutableBufferPointer { codec.encode(name, into: $0.baseAddress!) }
        }
        encoded.removeLast(encoded.count - count)
        let decoded = encoded.withUnsafeBufferPointer { encoded in codec.decoder.withDecoded(encoded) { Array($0) } }
        return (encoded, decoded)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomNamesOfEveryScriptAndLengthComeBackAsTheirBytes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let codec = Self.trained(Self.longNames(600, seed: seed))
        #expect(codec.symbolCount > 90 && codec.symbolCount <= 255)
        for length in 0...NameCodec.maxNameBytes {
            for _ in 0..<4 {
                let name = Array(Self.randomName(length: length, &random).utf8)
                let (encoded, decoded) = Self.roundTrip(codec, name)
                #expect(decoded == name, "\(name)")
                #expect(encoded.count <= 2 * name.count)
            }
        }
    }

    /// Bytes no symbol starts with are escaped (two bytes each) and come back; so does every
    /// byte value, escaped or not, and a table with no symbols at all.
    @Test func everyByteValueComesBackEscapedOrNot() {
        let codec = Self.trained(Self.longNames(600, seed: 9))
        let starts = Set(codec.table.map { $0[0] })
        let escaped = (0...255).map(UInt8.init).filter { !starts.contains($0) }
        #expect(!escaped.isEmpty)
        let all = (0...254).map(UInt8.init)
        let (encoded, decoded) = Self.roundTrip(codec, all)
        #expect(decoded == all)
        #expect(encoded.filter { $0 == NameCodec.escape }.count >= escaped.filter { $0 < 255 }.count)
        let only = Array(escaped.prefix(200))
        #expect(Self.roundTrip(codec, only) == (only.flatMap { [NameCodec.escape, $0] }, only))
        let empty = NameCodec(symbols: [])
        #expect(Self.roundTrip(empty, all).decoded == all)
        #expect(Self.roundTrip(empty, all).encoded.count == 2 * all.count)
        #expect(Self.roundTrip(empty, []).encoded.isEmpty)
    }

    /// The table learns the sample's characters and prefixes: the long shape's names take about
    /// two thirds of their bytes.
    @Test func aTrainedTableCompressesLongNamesOfManyScripts() {
        let codec = Self.trained(Self.longNames(600, seed: 4))
        let names = Self.longNames(2000, seed: 5, from: 10_000)
        let raw = names.reduce(0) { $0 + $1.utf8.count }
        let encoded = names.reduce(0) { $0 + Self.roundTrip(codec, Array($1.utf8)).encoded.count }
        #expect(Double(encoded) < 0.75 * Double(raw), "\(encoded) of \(raw) bytes")
        for symbol in ["日", "é", "🍎"] { #expect(codec.table.contains(Array(symbol.utf8))) }
    }

    /// Deterministic: the same sample trains the same table, and a name encodes to the same bytes.
    @Test func trainingAndEncodingAreDeterministic() {
        let sample = Self.longNames(500, seed: 6)
        let a = Self.trained(sample), b = Self.trained(sample)
        #expect(a.table == b.table)
        for name in Self.longNames(50, seed: 7) {
            #expect(Self.roundTrip(a, Array(name.utf8)).encoded == Self.roundTrip(b, Array(name.utf8)).encoded)
        }
    }

    /// Four names stepped in turn give each the bytes it gets alone, every name handed back once,
    /// whatever the lengths (under 8 bytes, a name taken and finished at once, included) and
    /// however many (fewer than four, not a multiple of four).
    @Test(arguments: [0, 1, 3, 4, 5, 257, 1000])
    func namesEncodedFourAtATimeAreEncodedAsAlone(count: Int) {
        var random = SplitMix64(seed: 41)
        let codec = Self.trained(Self.longNames(600, seed: 40))
        let names = (0..<count).map { _ in Array(Self.randomName(length: Int(random.next() % 256), &random).utf8) }
        var got = [[UInt8]?](repeating: nil, count: count)
        var handedBack = 0
        codec.encode(count: count, lendingName: { k, use in names[k].withUnsafeBufferPointer(use) }) { k, bytes in
            #expect(got[k] == nil, "name \(k) handed back twice")
            got[k] = Array(bytes)
            handedBack += 1
        }
        #expect(handedBack == count)
        for (k, name) in names.enumerated() {
            #expect(got[k] == Self.roundTrip(codec, name).encoded, "name \(k) of \(name.count) bytes")
        }
    }

    /// At each position the longest of three: the one symbol of 3–8 bytes kept for its first
    /// three bytes (the first in the table's order), the 2-byte symbol, the 1-byte one; a symbol
    /// is never taken past the name's end.
    @Test func eachPositionTakesTheLongestOfItsThreeCandidates() {
        let codec = NameCodec(symbols: [Array("abcdefgh".utf8), Array("abcd".utf8), Array("ab".utf8), Array("a".utf8),
                                        Array("c".utf8), Array("d".utf8), Array("xyz".utf8), Array("x".utf8)])
        func encoded(_ name: String) -> [UInt8] { Self.roundTrip(codec, Array(name.utf8)).encoded }
        #expect(encoded("abcdefghabcdefgh") == [0, 0])
        // "abcd" shares "abc" with "abcdefgh", which keeps the slot: "ab", then "c", "d".
        #expect(encoded("abcdxxxxxxxx") == [2, 4, 5, 7, 7, 7, 7, 7, 7, 7, 7])
        #expect(encoded("xyzxy") == [6, 7, NameCodec.escape, UInt8(ascii: "y")])
        #expect(encoded("abcdefg") == [2, 4, 5, NameCodec.escape, UInt8(ascii: "e"), NameCodec.escape, UInt8(ascii: "f"),
                                       NameCodec.escape, UInt8(ascii: "g")])
        for name in ["abcdefghabcdefgh", "abcdxxxxxxxx", "xyzxy", "abcdefg", "xy", "x", ""] {
            #expect(Self.roundTrip(codec, Array(name.utf8)).decoded == Array(name.utf8))
        }
    }

    /// A symbol ending in zero bytes would match the zeros after a name's end: it is never taken
    /// there, neither as a symbol of 3 bytes or more nor as a 2-byte one, one name at a time or
    /// four. (Names have no zero byte, so a trained table has none; a table is checked anyway.)
    @Test func aSymbolIsNeverTakenPastTheNamesEnd() {
        let codec = NameCodec(symbols: [Array("ab\0".utf8), Array("a\0".utf8), Array("a".utf8), Array("b".utf8)])
        let a = Array("a".utf8), ab = Array("ab".utf8), aba = Array("aba".utf8)
        #expect(Self.roundTrip(codec, ab) == ([2, 3], ab))
        #expect(Self.roundTrip(codec, a) == ([2], a))
        #expect(Self.roundTrip(codec, aba) == ([2, 3, 2], aba))
        let inside = Array("ab\0a\0xab".utf8)
        #expect(Self.roundTrip(codec, inside) == ([0, 1, NameCodec.escape, UInt8(ascii: "x"), 2, 3], inside))
        let names = [a, ab, aba, inside, Array(repeating: UInt8(ascii: "a"), count: 9) + [0], ab + ab + ab + ab]
        var got = [[UInt8]?](repeating: nil, count: names.count)
        codec.encode(count: names.count, lendingName: { k, use in names[k].withUnsafeBufferPointer(use) }) { k, bytes in got[k] = Array(bytes) }
        for (k, name) in names.enumerated() {
            #expect(got[k] == Self.roundTrip(codec, name).encoded)
            #expect(Self.roundTrip(codec, name).decoded == name)
        }
    }

    /// A column stores names as they are until it has seen 64 KiB of names over the threshold,
    /// then compresses names over it that come out shorter; every name reads back the same, by
    /// subscript, bytes, a reader and appended, before and after a compaction.
    @Test func aColumnCompressesLongNamesOnceTrained() throws {
        let names = Self.longNames(3000, seed: 11)
        var column = NameColumn()
        var trainedAt: Int?
        for (i, name) in names.enumerated() {
            column.append(name)
            if trainedAt == nil && column.codec != nil { trainedAt = i }
        }
        let first = try #require(trainedAt)
        let sampled = names[...first].reduce(0) { $0 + $1.utf8.count }
        #expect(sampled >= NameColumn.trainingBytes && sampled - names[first].utf8.count < NameColumn.trainingBytes)
        // Names given before the table stay whole; after it, the long ones are compressed.
        let shortOnes = ["file_00000001.txt", "Item_" + String(repeating: "0", count: 36), String(repeating: "€", count: 15),
                         String(repeating: "é", count: 128), "", "a"]
        for name in shortOnes { column.append(name) }
        #expect(column.slots[0].isCompressed == false)
        #expect(column.slots[first].isCompressed == false)
        #expect((first + 1..<names.count).allSatisfy { column.slots[$0].isCompressed })
        for i in names.count..<(names.count + 5) { #expect(!column.slots[i].isCompressed) }
        let all = names + shortOnes
        let check = { (column: NameColumn) in
            column.withReader { reader in
                for (i, name) in all.enumerated() {
                    #expect(column[i] == name)
                    #expect(reader[i] == name)
                    #expect(column.withUTF8(i) { Array($0) } == Array(name.utf8))
                    #expect(reader.withUTF8(i) { Array($0) } == Array(name.utf8))
                    var out: [UInt8] = [7]
                    reader.appendUTF8(i, to: &out)
                    #expect(out == [7] + Array(name.utf8))
                }
            }
        }
        check(column)
        let raw = names.reduce(0) { $0 + $1.utf8.count } + shortOnes.reduce(0) { $0 + ($1.utf8.count > 15 ? $1.utf8.count : 0) }
        #expect(Double(column.bytes.liveBytes) < 0.8 * Double(raw), "\(column.bytes.liveBytes) of \(raw)")
        // Renames until a compaction: compressed names are moved as they are.
        var renamed = column
        var compactions = 0
        for round in 1...(2 * NameColumn.compactionFloor / (100 * 60)) {
            for i in 0..<100 {
                let freed = renamed.bytes.freedBytes
                renamed[i] = Self.longNames(1, seed: UInt64(round * 1000 + i))[0]
                if renamed.bytes.freedBytes < freed { compactions += 1 }
            }
        }
        #expect(compactions >= 1)
        #expect(renamed.bytes.freedBytes <= Swift.max(renamed.bytes.liveBytes, NameColumn.compactionFloor))
        for i in 100..<all.count { #expect(renamed[i] == all[i]) }
        check(column)
    }

    /// A copy of the trained column (a snapshot) shares its table and keeps its names while the
    /// original is written; a copy made before the training has no table and keeps its names.
    @Test func aCopySharesTheTableAndKeepsItsNames() throws {
        let names = Self.longNames(1500, seed: 12)
        var column = NameColumn()
        for name in names.prefix(200) { column.append(name) }
        let before = column
        for name in names.dropFirst(200) { column.append(name) }
        let codec = try #require(column.codec)
        let after = column
        #expect(after.codec === codec)
        for i in 0..<names.count { column[i] = "renamed #\(i) " + String(repeating: "日", count: 20) }
        for name in Self.longNames(500, seed: 13) { column.append(name) }
        #expect(before.codec == nil)
        for i in 0..<200 { #expect(before[i] == names[i]) }
        for i in 0..<names.count { #expect(after[i] == names[i]) }
        #expect(column.codec === codec)
        #expect(column[1400] == "renamed #1400 " + String(repeating: "日", count: 20))
    }

    /// Compressed names order as their bytes do stored whole (``NameOrder``, `String` order), the
    /// reader's compare deciding on decoded prefixes where it can, and equal names are equal.
    @Test(arguments: [21, 22] as [UInt64])
    func compressedNamesOrderAndCompareAsWholeOnes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var names = Self.longNames(700, seed: seed)
        // Names sharing long prefixes, differing at every distance, and combining marks after a
        // shared prefix: the prefix's 32 bytes cannot decide, the whole names must.
        let stem = Self.longNames(1, seed: seed + 100)[0]
        for cut in stride(from: 40, to: stem.utf8.count, by: 3) {
            let prefix = String(decoding: Array(stem.utf8).prefix(cut), as: UTF8.self)
            names.append(prefix + Self.randomName(length: 60, &random))
            names.append(prefix + "e\u{301}" + Self.randomName(length: 50, &random))
            names.append(prefix + "é" + Self.randomName(length: 50, &random))
        }
        names += names.prefix(20)   // equal names
        let column = NameColumn(names)
        #expect(column.codec != nil)
        #expect((0..<names.count).filter { column.slots[$0].isCompressed }.count >= 200)
        column.withReader { reader in
            for a in 0..<names.count {
                var x = names[a]
                for b in Array(0..<60) + Array(names.count - 400..<names.count) {
                    var y = names[b]
                    let expected = x.withUTF8 { x in y.withUTF8 { y in NameOrder.compare(x, y) } }.signum()
                    #expect(reader.compare(a, b).signum() == expected, "\(x) vs \(y)")
                    #expect(expected == (x == y ? 0 : x < y ? -1 : 1) || x.unicodeScalars.contains("\u{301}")
                            || y.unicodeScalars.contains("\u{301}"))
                }
            }
        }
        // The name index's sort on first bytes read once sorts as comparing names whole does.
        let ids = (0..<names.count).map { ItemID($0) }.shuffled(using: &random)
        let expected = ids.sorted { a, b in
            var x = names[Int(a)], y = names[Int(b)]
            let c = x.withUTF8 { x in y.withUTF8 { y in NameOrder.compare(x, y) } }
            return c != 0 ? c < 0 : a < b
        }
        #expect(column.withReader { NameIndex.sortedByPrefixes(ids, $0) } == expected)
    }

    /// A bucket large enough to be sorted on two threads (its halves sorted apart, then merged)
    /// sorts as one thread does: equal names by id, canonically equal spellings as `NameOrder`
    /// has them, names whose first bytes do not decide by their whole.
    @Test func aSortOnTwoThreadsIsTheSortOnOne() throws {
        var random = SplitMix64(seed: 31)
        var names = Self.longNames(NameIndex.minimumForTwoThreads + 1_000, seed: 31).map { "Item_" + $0 }
        for k in 0..<300 {
            names.append(names[k])      // equal names
            names.append("Item_caf" + (k % 2 == 0 ? "\u{E9}" : "e\u{301}") + Self.randomName(length: 60, &random))
        }
        let column = NameColumn(names)
        #expect(column.codec != nil)
        let ids = (0..<names.count).map { ItemID($0) }.shuffled(using: &random)
        let one = column.withReader { NameIndex.sortedByPrefixes(ids, $0) }
        let two = column.withReader { NameIndex.sortedByPrefixes(ids, $0, onTwoThreads: true) }
        #expect(two == one)
        #expect(two.count == ids.count && Set(two).count == ids.count)
        let expected = column.withReader { reader in ids.sorted { SortedIDs.precedes($0, $1, reader) } }
        #expect(two == expected)
        // Below the threshold the caller's thread sorts alone, the same order.
        let few = Array(ids.prefix(NameIndex.minimumForTwoThreads - 1))
        #expect(column.withReader { NameIndex.sortedByPrefixes(few, $0, onTwoThreads: true) }
                == column.withReader { NameIndex.sortedByPrefixes(few, $0) })
    }

    /// Compressed names put in the name index many at once (a crawl's part: sorted by their
    /// prefixes, merged into a bucket reading each name's first bytes once) end in the order
    /// inserting them one by one gives, with names sharing long prefixes and decomposed spellings.
    @Test(arguments: [(31, 700), (32, 90), (33, 7)] as [(UInt64, Int)])
    func compressedNamesInRunsGoWhereOneByOneTheyWould(seed: UInt64, runSize: Int) {
        var random = SplitMix64(seed: seed)
        var all = Self.longNames(2500, seed: seed).map { "000" + $0 }     // one bucket, as a crawl's `00000123-…` names
        let stem = all[0]
        for cut in stride(from: 40, to: stem.utf8.count, by: 7) {
            let prefix = String(decoding: Array(stem.utf8).prefix(cut), as: UTF8.self)
            all.append(prefix + "e\u{301}" + Self.randomName(length: 50, &random))
            all.append(prefix + "é" + Self.randomName(length: 50, &random))
        }
        all += all.prefix(30)   // equal names
        let names = NameColumn(all)
        #expect((0..<all.count).filter { names.slots[$0].isCompressed }.count >= 2000)
        var order = (0..<all.count).map { ItemID($0) }
        order.shuffle(using: &random)
        let bulk = BulkNameIndexTests.insertInRuns(order, runSize: runSize, all, names,
                                                   sort: { NameIndex.sortedByName($0, names: names) }) { bulk, one, _ in
            #expect(bulk.chunks.flatMap { $0 } == one.chunks.flatMap { $0 })
        }
        #expect(bulk.count == all.count)
    }

    /// ``NameOrder/orderOfPrefixes(_:isWhole:_:isWhole:)`` decides only with 8 bytes after the
    /// difference in each prefix, and then as the whole names do.
    @Test func prefixesDecideOnlyWithRoomAfterTheDifference() {
        let check = { (a: String, b: String, prefix: Int) -> Int? in
            var a = a, b = b
            return a.withUTF8 { x in
                b.withUTF8 { y in
                    NameOrder.orderOfPrefixes(UnsafeBufferPointer(rebasing: x.prefix(prefix)), isWhole: x.count <= prefix,
                                              UnsafeBufferPointer(rebasing: y.prefix(prefix)), isWhole: y.count <= prefix)
                }
            }
        }
        #expect(check("abcdefghijklmnopqrstuvwxyz", "abcXefghijklmnopqrstuvwxyz", 12) == 1)
        #expect(check("abcdefghijklmnopqrstuvwxyz", "abcdefgXijklmnopqrstuvwxyz", 12) == nil)
        #expect(check("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz", 12) == nil)
        #expect(check("abc", "abcdefghijklmnopqrstuvwxyz", 12) == -1)
        #expect(check("abc", "abcdefg", 12) == -1)
        #expect(check("abc", "abc", 12) == 0)
        // A combining mark after the difference: the whole names decide.
        #expect(check("aaae\u{301}zzzzzzzzzzzzzzz", "aaaézzzzzzzzzzzzzzz", 12) == nil)
    }

    /// The index over a trained column: child lookups by bytes and the name index's exact and
    /// prefix lookups answer as over names stored whole.
    @Test func theIndexAnswersOverCompressedNames() {
        var tree = TreeBuilder()
        let names = Array(Set(Self.longNames(1500, seed: 31))).sorted()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(names.map { "Documents/" + $0 })])
        let documents = index.lookup(container: 0, ["Documents"])!
        for name in names.prefix(300) + names.suffix(300) {
            let id = index.child(documents, name)
            #expect(id.map { index.name($0) } == name)
            #expect(Set(index.candidates(for: NameHint([.exact(name)])).map { index.name($0) }) == [name])
        }
        #expect(index.child(documents, names[0] + "x") == nil)
        let items = Set(index.candidates(for: NameHint([.prefix("Item_")])).map { index.name($0) })
        #expect(items == Set(names.filter { $0.hasPrefix("Item_") }))
        #expect(!items.isEmpty)
    }
}
