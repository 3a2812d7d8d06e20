import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// Names put in the name index many at once (a crawl's part): the same order as one by one, on
/// flat buckets, odd and non-ASCII names (canonically equal spellings, combining marks, long names),
/// into empty and filled buckets, through both ways a chunk takes them (a merge, a search each).
@Suite("Name index in bulk")
struct BulkNameIndexTests {
    /// Names that sort in the ways `NameOrder` knows: ASCII, Latin-1, Greek, Cyrillic, CJK, emoji
    /// (bytes at and above U+0300's, read scalar by scalar), names over 15 bytes (kept outside their
    /// slot), the same name many times. With `decomposed`, also `e` + U+0301 and `a` + U+0308 beside
    /// `é` and `ä` (ordered by their NFC forms, as `String` means to: `NameOrder`).
    static func names(_ count: Int, seed: UInt64, decomposed: Bool = false) -> [String] {
        var random = SplitMix64(seed: seed)
        let pieces = ["file_", "Item_", "é", "ä", "Ω", "д", "日本", "🙂", "x", "_", "0", "Z", "z", "ß", "long-name-part-"]
            + (decomposed ? ["e\u{301}", "a\u{308}"] : [])
        return (0..<count).map { _ in
            var name = ""
            for _ in 0..<(1 + Int(random.next() % 4)) { name += pieces[Int(random.next() % UInt64(pieces.count))] }
            return name + String(random.next() % 50)
        }
    }

    static func ids(_ sorted: SortedIDs) -> [ItemID] { sorted.chunks.flatMap { $0 } }

    /// The order the sweep sorts by, decided at the first difference, is canonical ordering
    /// (decomposed spellings included), and names are equal exactly when `String` calls them
    /// equal (``CanonicalOrder``).
    @Test func orderAtTheFirstDifferenceIsCanonicalOrder() {
        let all = Self.names(300, seed: 5, decomposed: true) + ["é", "e\u{301}", "ab", "abc", "", "a", "Ω", "Ωa", "\u{E9}5"]
        for x in all {
            for y in all {
                var (a, b) = (x, y)
                let c = a.withUTF8 { p in b.withUTF8 { q in NameOrder.compare(p, q) } }
                let expected = CanonicalOrder.compare(x, y)
                #expect(c.signum() == expected, "\(x.unicodeScalars.map(\.value)) vs \(y.unicodeScalars.map(\.value))")
                #expect((expected == 0) == CanonicalOrder.stringsEqual(x, y))
            }
        }
    }

    /// A bucket's new names are sorted in ``SortedIDs``' order: by their bytes when every name is
    /// made of stable scalars (Greek, Cyrillic, CJK and emoji among them), by ``NameOrder`` when
    /// one is not (a decomposed `é`).
    @Test(arguments: [false, true])
    func sortedByNameIsTheOrderSortedIDsKeeps(decomposed: Bool) {
        let all = Self.names(3000, seed: 11, decomposed: decomposed) + ["日本", "日本", "Ω🙂", "д"]
        let names = NameColumn(all)
        var random = SplitMix64(seed: 12)
        var ids = (0..<all.count).map { ItemID($0) }
        ids.shuffle(using: &random)
        let expected = names.withReader { reader in ids.sorted { SortedIDs.precedes($0, $1, reader) } }
        #expect(NameIndex.sortedByName(ids, names: names) == expected)
        let stable = all.allSatisfy { name in
            var name = name
            return name.withUTF8 { NameOrder.isAllStable($0) }
        }
        #expect(stable == !decomposed)
    }

    @Test func stableScalarsAreThePlainOnes() {
        func stable(_ name: String) -> Bool {
            var name = name
            return name.withUTF8 { NameOrder.isAllStable($0) }
        }
        #expect(stable("") && stable("Item_12") && stable("\u{E9}ßł") && stable("日本語Ωαд🍎🧀") && stable("ひらがなカタカナ한국"))
        #expect(!stable("e\u{301}") && !stable("a\u{308}b") && !stable("\u{1F1E6}") && !stable("Ά") && !stable("\u{2126}"))
        // ASCII is passed over eight bytes at a time: what follows a long ASCII start still counts.
        #expect(stable("file_00001234.txt") && stable("Item_000012日本語") && stable("abcdefghijklmnop\u{E9}"))
        #expect(!stable("Item_000012e\u{301}_copy.txt") && !stable("abcdefgh\u{2126}abcdefgh") && !stable("abcdefgh\u{1F1E6}xyzxyzxyz"))
    }

    /// `order` put into two buckets in runs of `runSize`: one id at a time, and each run at once
    /// as `sort` orders it; `check(bulk, oneByOne, idsSoFar)` after each run. - Returns: the bulk one.
    @discardableResult
    static func insertInRuns(_ order: [ItemID], runSize: Int, _ all: [String], _ names: NameColumn,
                             sort: ([ItemID]) -> [ItemID],
                             check: (SortedIDs, SortedIDs, Int) -> Void) -> SortedIDs {
        var one = SortedIDs(), bulk = SortedIDs()
        var start = 0
        while start < order.count {
            let run = Array(order[start..<min(start + runSize, order.count)])
            for id in run { one.insert(id, name: all[Int(id)], names: names) }
            bulk.insert(sorted: sort(run), names: names)
            start += runSize
            check(bulk, one, start)
        }
        return bulk
    }

    @Test(arguments: [(1, 5000), (2, 600), (3, 40), (4, 1)] as [(UInt64, Int)])
    func sortedRunsGiveWhatInsertingOneByOneGives(seed: UInt64, runSize: Int) {
        let all = Self.names(6000, seed: seed)
        let names = NameColumn(all)
        var random = SplitMix64(seed: seed &+ 100)
        var order = Array(0..<all.count).map { ItemID($0) }
        order.shuffle(using: &random)
        var bulk = Self.insertInRuns(order, runSize: runSize, all, names, sort: { run in
            names.withReader { reader in run.sorted { SortedIDs.precedes($0, $1, reader) } }
        }) { bulk, one, start in
            let (b, o) = (Self.ids(bulk), Self.ids(one))
            if let d = b.indices.first(where: { $0 >= o.count || b[$0] != o[$0] }) {
                Issue.record("after \(start) ids, at \(d): bulk \(b[max(0, d - 2)...min(d + 2, b.count - 1)].map { all[Int($0)].unicodeScalars.map { String($0.value, radix: 16) } }) one \(o[max(0, d - 2)...min(d + 2, o.count - 1)].map { all[Int($0)].unicodeScalars.map { String($0.value, radix: 16) } })")
                return
            }
            #expect(b.count == o.count)
        }
        for chunk in bulk.chunks {
            #expect(!chunk.isEmpty && chunk.count <= SortedIDs.chunkLimit)
            #expect(chunk.capacity <= chunk.count + chunk.count / 4 + 8, "capacity \(chunk.capacity) for \(chunk.count) ids")
        }
        // Ties (equal names, canonically equal spellings) by id, as the `String` order says.
        func precedes(_ a: ItemID, _ b: ItemID) -> Bool {
            let (x, y) = (all[Int(a)], all[Int(b)])
            return x != y ? x < y : a < b
        }
        #expect(Self.ids(bulk) == order.sorted(by: precedes))
        // Lookups and removals work on what the sweep built.
        for id in order.prefix(500) { bulk.remove(id, name: all[Int(id)], names: names) }
        #expect(Self.ids(bulk) == order.dropFirst(500).sorted(by: precedes))
    }

    /// Many ids into a bucket that already holds many, few per chunk: each searched for.
    @Test func fewPerChunkAreSearchedForOneByOne() {
        let all = (0..<20_000).map { "file_\(String(($0 &* 7919) % 20_000, radix: 10))" }
        let names = NameColumn(all)
        var one = SortedIDs(), bulk = SortedIDs()
        let first = Array(0..<19_900).map { ItemID($0) }, second = Array(19_900..<20_000).map { ItemID($0) }
        for run in [first, second] {
            for id in run { one.insert(id, name: all[Int(id)], names: names) }
            bulk.insert(sorted: names.withReader { reader in run.sorted { SortedIDs.precedes($0, $1, reader) } }, names: names)
        }
        #expect(bulk.chunks.count > second.count / 2, "the second run was not spread over many chunks")
        #expect(Self.ids(bulk) == Self.ids(one))
    }

    /// A first crawl of one flat directory placed in parts: every bucket of the name index holds
    /// exactly the names in it, in (name, id) order, and queries find what the listing whole finds.
    @Test(arguments: [7, 1000, 8192])
    func partsFillTheNameIndexAsTheListingWholeDoes(size: Int) {
        var tree = TreeBuilder()
        let paths = Self.names(3000, seed: 9).enumerated().map { "Documents/\($0.element)-\($0.offset)" }
            + ["Documents/sub/Item_1", "Documents/sub/é", "Documents/sub/e\u{301}", "Documents/.hidden/Item_2"]
        let listing = tree.listing(paths)
        let whole = ListingPartsTests.index(tree.descriptor, applyingWhole: listing)
        let inParts = ListingPartsTests.index(tree.descriptor)
        for batch in ListingPartsTests.batches(listing, size: size) { inParts.apply(batch, record: false) }
        #expect(ListingPartsTests.described(inParts) == ListingPartsTests.described(whole))
        inParts.flushPendingNames()
        var filed = 0
        for (key, ids) in inParts.nameIndex.contents {
            filed += ids.count
            for id in ids { #expect(NameIndex.bucket(inParts.name(id)) == key) }
            let expected = ids.sorted { a, b in
                let (x, y) = (inParts.name(a), inParts.name(b))
                return x != y ? x < y : a < b
            }
            #expect(ids == expected, "bucket \(key)")
        }
        #expect(filed == inParts.entryCount - 1, "every entry but the root is in the name index once")
        for hint in [NameHint([.prefix("Item_")]), NameHint([.prefix("e")]), NameHint([.exact("é3")]),
                     NameHint([.prefix("日")]), NameHint([.prefix("file_")], caseInsensitive: true)] {
            let found = Set(inParts.candidates(for: hint).map { inParts.relativeComponents(of: $0) })
            let expected = Set(whole.candidates(for: hint).map { whole.relativeComponents(of: $0) })
            #expect(found == expected, "\(hint)")
        }
    }

    /// A first crawl's names wait past its last part: a lookup files only the buckets it reads
    /// and finds what the listing applied whole finds, between two parts as after the last; the
    /// rest stay waiting until a snapshot is taken, which files them off the engine, so that it
    /// saves the whole order and a restore takes it rather than sorting; the engine then takes
    /// that filing, unless it filed names itself since.
    @Test func namesWaitUntilALookupReadsTheirBucketOrASnapshotIsTaken() throws {
        var tree = TreeBuilder()
        let count = 3_000
        let listing = tree.listing((0..<count).flatMap { ["Documents/file_\($0)", "Documents/Item_\($0)"] })
        let whole = ListingPartsTests.index(tree.descriptor, applyingWhole: listing)
        let index = ListingPartsTests.index(tree.descriptor)
        let batches = ListingPartsTests.batches(listing, size: 200)
        func filed(_ index: MetadataIndex) -> Int { index.nameIndex.contents.values.reduce(0) { $0 + $1.count } }
        for (n, batch) in batches.enumerated() {
            let before = filed(index)
            index.apply(batch, record: false)
            #expect(filed(index) == before, "after part \(n): no name filed by the crawl itself")
            guard n % 7 == 3 else { continue }
            let root = index.rootID(ofContainer: 0)!
            let documents = index.childEntries(of: root)!.first { $0.name == "Documents" }!.id
            let placed = Set(index.childEntries(of: documents)!.map(\.name).filter { $0.hasPrefix("file_1") })
            let found = Set(index.candidates(for: NameHint([.prefix("file_1")])).map { index.name($0) })
            #expect(found == placed, "after part \(n)")
            #expect(index.pendingNames["fil"] == nil && index.pendingNames["ite"] != nil, "after part \(n): only the bucket read is filed")
        }
        #expect(index.pendingNames["fil"]?.isEmpty == false && index.pendingNames["ite"]?.count == count,
                "names placed after the last lookup wait")
        func crawled() -> MetadataIndex {
            let fresh = ListingPartsTests.index(tree.descriptor)
            for batch in batches { fresh.apply(batch, record: false) }
            return fresh
        }
        // Each lookup on a crawl no lookup read: it files exactly the buckets it reads.
        let lookups: [(NameHint, Set<String>)] = [
            (NameHint([.exact("Item_7")]), ["ite"]), (NameHint([.prefix("it")], caseInsensitive: true), ["ite"]),
            (NameHint([.prefix("f")]), ["fil"]), (NameHint([.exact("Documents")]), ["doc"]), (NameHint([.exact("ab")]), []),
        ]
        for (hint, reached) in lookups {
            let fresh = crawled()
            let found = Set(fresh.candidates(for: hint).map { fresh.name($0) })
            #expect(found == Set(whole.candidates(for: hint).map { whole.name($0) }), "\(hint)")
            #expect(Set(fresh.pendingNames.keys) == Set(["doc", "fil", "ite"]).subtracting(reached), "\(hint)")
        }
        // A rename files the bucket of the name it takes out, and only that one.
        let moved = crawled()
        let documents = try #require(moved.childEntries(of: moved.rootID(ofContainer: 0)!)?.first { $0.name == "Documents" }?.id)
        let item = try #require(moved.childEntries(of: documents)?.first { $0.name == "Item_7" }?.id)
        moved.rename(item, to: "zzz_7", parent: documents)
        #expect(Set(moved.pendingNames.keys) == ["doc", "fil"])
        #expect(moved.candidates(for: NameHint([.exact("Item_7")])).isEmpty)
        #expect(moved.candidates(for: NameHint([.prefix("zzz")])) == [item])
        #expect(moved.candidates(for: NameHint([.prefix("Item_")])).count == count - 1)

        // A snapshot of a crawl that no lookup read: taking it files nothing on the engine; the
        // view files the names, and its restore takes the saved order; the engine takes the same.
        func named(_ index: MetadataIndex) -> [String: [String]] { index.nameIndex.contents.mapValues { $0.map(index.name) } }
        let unread = crawled()
        let waiting = unread.pendingNames
        #expect(waiting.values.reduce(0) { $0 + $1.count } == 2 * count + 1, "the files and Documents")
        var view = IndexSnapshot.View(unread, history: ChangeHistory(epoch: 1))
        #expect(unread.pendingNames == waiting && unread.nameIndex.isEmpty, "taking a snapshot sorts nothing on the engine")
        let filedOff = view.fileWaitingNames()
        let bytes = IndexSnapshot.encode(view, snapshotID: 1, savedAt: 0, bootID: "b", final: true, continues: nil)
        let restored = try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [tree.descriptor],
                                                 retention: .init(), now: 0, bootID: "b")
        #expect(restored.nameIndexSource == .saved)
        #expect(named(restored.index) == named(whole))
        unread.takeFiledNames(filedOff)
        #expect(unread.pendingNames.isEmpty)
        #expect(unread.nameIndex.contents == restored.index.nameIndex.contents)

        // A bucket filed on the engine after the view was taken (by a lookup, by a rename): the
        // others are taken, it is not, and lookups find what they should.
        let renamedAfter = crawled(), lookedUpAfter = crawled()
        for index in [renamedAfter, lookedUpAfter] {
            var late = IndexSnapshot.View(index, history: ChangeHistory(epoch: 1))
            let filed = late.fileWaitingNames()
            let documents = try #require(index.childEntries(of: index.rootID(ofContainer: 0)!)?.first { $0.name == "Documents" }?.id)
            if index === renamedAfter {
                let file = try #require(index.childEntries(of: documents)?.first { $0.name == "file_9" }?.id)
                index.rename(file, to: "Item_x9", parent: documents)
            } else {
                _ = index.candidates(for: NameHint([.prefix("file_")]))
            }
            let fileBucket = index.nameIndex.contents["fil"]
            index.takeFiledNames(filed)
            #expect(index.pendingNames.isEmpty)
            #expect(index.nameIndex.contents["fil"] == fileBucket, "the bucket filed here since is left as it is")
            #expect(Set(index.candidates(for: NameHint([.prefix("Item_x")])).map { index.name($0) }) == (index === renamedAfter ? ["Item_x9"] : []))
            #expect(index.candidates(for: NameHint([.prefix("file_")])).count == (index === renamedAfter ? count - 1 : count))
            #expect(index.candidates(for: NameHint([.prefix("Item_")])).count == (index === renamedAfter ? count + 1 : count))
        }
        // The same ids waiting again in a bucket filed since (ids freed and placed again by a
        // later crawl would be): not taken, whatever names they have now.
        let refilled = crawled()
        var before = IndexSnapshot.View(refilled, history: ChangeHistory(epoch: 1))
        let filedBefore = before.fileWaitingNames()
        refilled.flushPendingNames()
        refilled.pendingNames["fil"] = filedBefore["fil"]?.waiting
        refilled.takeFiledNames(filedBefore)
        #expect(refilled.pendingNames["fil"] == filedBefore["fil"]?.waiting, "a bucket filed since is never taken")
        // Names given to a bucket after the view (a part placed since) leave that bucket waiting.
        let grown = ListingPartsTests.index(tree.descriptor)
        for batch in batches.dropLast() { grown.apply(batch, record: false) }
        var early = IndexSnapshot.View(grown, history: ChangeHistory(epoch: 1))
        let filedEarly = early.fileWaitingNames()
        grown.apply(batches.last!, record: false)
        let grew = Set(waiting.keys.filter { grown.pendingNames[$0] != filedEarly[$0]?.waiting })
        #expect(!grew.isEmpty)
        grown.takeFiledNames(filedEarly)
        #expect(Set(grown.pendingNames.keys) == grew)
        grown.flushPendingNames()
        #expect(named(grown) == named(whole))
    }

    /// A saved index restored puts its names in the name index the same way: the order the live
    /// index had, bucket by bucket.
    @Test func aRestoredIndexHasTheNameIndexTheSavedOneHad() throws {
        var tree = TreeBuilder()
        let paths = Self.names(2000, seed: 11).enumerated().map { "Documents/d\($0.offset % 7)/\($0.element)-\($0.offset)" }
        let index = ListingPartsTests.index(tree.descriptor, applyingWhole: tree.listing(paths))
        let bytes = IndexSnapshot.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)), snapshotID: 1, savedAt: 0,
                                         bootID: "b", final: true, continues: nil)
        let restored = try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [tree.descriptor],
                                                 retention: .init(), now: 0, bootID: "b")
        #expect(restored.index.nameIndex.contents == index.nameIndex.contents)
        #expect(restored.index.nameIndex.contents.values.reduce(0) { $0 + $1.count } == index.entryCount - 1)
    }
}
