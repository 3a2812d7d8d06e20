import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// A container's crawl in parts (``FileSystemChange/listingPart(_:_:)``): applied as they come
/// into an empty container nobody records, ignored otherwise; either way the index ends as the
/// listing alone would leave it.
@Suite("Listing in parts")
struct ListingPartsTests {
    static let paths = [
        "Documents/Item_1", "Documents/Item_2", "Documents/a/b/c/Item_3", "Documents/a/Item_4",
        "Documents/List.gro/inner/data", "Documents/List.gro/Info", "Documents/.hidden/Item_5",
        "Documents/Item_2.sync-conflict-20261122-034428-ABCDEFG", "Documents/empty/", "Item_outside",
        "Documents/z/y/x/w/Item_6", "Documents/z/Item_7",
    ]

    /// The listing's entries sent ahead in parts of `size`, each in a batch of its own, then the listing.
    static func batches(_ listing: FileSystemChange, size: Int) -> [[FileSystemChange]] {
        guard case .listing(let c, [], let whole) = listing, let root = whole.root else { return [[listing]] }
        var batches: [[FileSystemChange]] = []
        var first = 0
        while whole.entries.count - first >= size {
            batches.append([.listingPart(c, CrawlListing.Part(root: root, first: first,
                                                              entries: Array(whole.entries[first..<first + size])))])
            first += size
        }
        return batches + [[listing]]
    }

    /// A new index of the container, with the listing applied whole when one is given.
    static func index(_ descriptor: ContainerDescriptor, applyingWhole listing: FileSystemChange? = nil) -> MetadataIndex {
        let index = MetadataIndex()
        index.addContainer(descriptor)
        if let listing { index.apply([listing], record: false) }
        return index
    }

    /// Each entry's path with what a query can see of it: kind, size, flags, package totals, conflicts.
    static func described(_ index: MetadataIndex) -> [String] {
        guard let root = index.rootID(ofContainer: 0) else { return [] }
        var lines: [String] = []
        var stack: [ItemID] = [root]
        while let id = stack.popLast() {
            let e = index.entry(id)
            lines.append("\(index.relativeComponents(of: id).joined(separator: "/")) \(e.stat.kind) \(e.stat.size) "
                + "flags \(e.flags.rawValue) package \(e.packageSize)/\(e.packageModified) "
                + "conflicts \(index.hasUnresolvedConflicts(id))")
            stack.append(contentsOf: e.children ?? [])
        }
        return lines.sorted()
    }

    @Test(arguments: [1, 2, 5, 1000])
    func partsOfAFirstCrawlGiveTheIndexTheListingAloneGives(size: Int) {
        var tree = TreeBuilder()
        let listing = tree.listing(Self.paths)
        let whole = Self.index(tree.descriptor, applyingWhole: listing)
        let inParts = Self.index(tree.descriptor)
        let batches = Self.batches(listing, size: size)
        for (i, batch) in batches.enumerated() {
            inParts.apply(batch, record: false)
            // Applied as they come: after each part its entries are in (and the root).
            if case .listingPart(_, let part) = batch[0] {
                #expect(inParts.entryCount == part.first + part.entries.count + 1, "after part \(i)")
            }
        }
        #expect(Self.described(inParts) == Self.described(whole))
        #expect(inParts.listingInParts == nil)
    }

    /// Long names of parts placed once the name codec is trained are compressed ahead, on two
    /// threads (``PreparedNames``): every name reads back as it was listed, and nearly all are
    /// compressed (those before the codec's training are not, here or in the listing applied whole).
    @Test(arguments: [700, 3000])
    func longNamesCompressedAheadReadBackAsListed(size: Int) {
        var tree = TreeBuilder()
        let names = NameCodecTests.longNames(6000, seed: 41)
        let listing = tree.listing(names.enumerated().map { "Documents/d\($0.offset % 30)/\($0.element)" })
        let whole = Self.index(tree.descriptor, applyingWhole: listing)
        let inParts = Self.index(tree.descriptor)
        for batch in Self.batches(listing, size: size) { inParts.apply(batch, record: false) }
        #expect(Self.described(inParts) == Self.described(whole))
        let compressed = { (index: MetadataIndex) in (0..<index.names.count).filter { index.names.slots[$0].isCompressed }.count }
        #expect(compressed(inParts) > 5000 && compressed(whole) > 5000)
    }

    /// A part's new entries are placed from their names' bytes, except names only a `String`
    /// tells (hidden, temporary, a sync engine's, an evicted item's placeholder, conflict copies,
    /// the container root's children, directories with a `.` where packages are known): both ways
    /// give the flags, statuses and children the listing applied whole gives.
    @Test(arguments: [1, 3, 1000], [true, false])
    func namesPlacedFromTheirBytesEndAsTheListingWholeLeavesThem(size: Int, packages: Bool) {
        let paths = [
            "Documents/plain", "Documents/ünïcödé-name-longer-than-15-bytes", "Documents/backup~", "Documents/#autosave#",
            "Documents/~lock", "Documents/Item_9", "Documents/.Item_9.ubiquity-evicted", "Documents/.Item_8.ubiquity-evicted",
            "Documents/notes (conflicted copy 2026-11-20).txt", "Documents/notes.txt", "Documents/.stfolder/inside/file",
            "Documents/.hidden/deep/file", "Documents/List.gro/a/b", "Documents/List.gro/Info", "Documents/x.conflict",
            "Documents/dir.gro.d/file", "Documents/sub/", "top-level-file", "Documents/e\u{301}", "Documents/\u{E9}",
            "Documents/Upper.GRO/x", "Documents/trailing./x", "Documents/ünï.gro/x", "Documents/no-dot-dir/x", "Documents/.gro/x",
        ]
        var tree = TreeBuilder()
        let listing = tree.listing(paths)
        let descriptor = packages ? tree.descriptor : ContainerDescriptor(id: tree.container, root: TreeBuilder.root, packageTypes: [:])
        let whole = Self.index(descriptor, applyingWhole: listing)
        let inParts = Self.index(descriptor)
        for batch in Self.batches(listing, size: size) { inParts.apply(batch, record: false) }
        #expect(Self.described(inParts) == Self.described(whole))
        #expect(inParts.entryCount == whole.entryCount)
    }

    /// Into a container that holds entries the parts are not applied: the listing is a diff, and a
    /// file moved to another directory while nobody watched keeps its identity.
    @Test func partsIntoAnIndexedContainerWaitForTheListing() {
        var tree = TreeBuilder()
        let index = Self.index(tree.descriptor)
        let moved = FileStat(kind: .regular, size: 7, modified: 5, created: 5, changed: 5, inode: 77)
        let c = tree.container
        let dirA = tree.directory(), dirB = tree.directory()
        index.apply([.listing(c, [], CrawlListing(root: tree.directory(), entries: [
            .init(parent: -1, name: "a", stat: dirA), .init(parent: 0, name: "f", stat: moved),
            .init(parent: -1, name: "b", stat: dirB),
        ]))], record: false)
        let id = index.lookup(container: 0, ["a", "f"])
        let after = CrawlListing(root: tree.directory(), entries: [
            .init(parent: -1, name: "a", stat: dirA), .init(parent: -1, name: "b", stat: dirB),
            .init(parent: 1, name: "f", stat: moved), .init(parent: -1, name: "new", stat: tree.file()),
        ])
        let batches = Self.batches(.listing(c, [], after), size: 2)
        #expect(batches.count == 3)
        index.apply(batches[0], record: false)
        #expect(index.lookup(container: 0, ["a", "f"]) == id, "a part changed an indexed container")
        #expect(index.listingInParts == nil)
        for batch in batches.dropFirst() { index.apply(batch, record: false) }
        #expect(index.lookup(container: 0, ["a", "f"]) == nil)
        #expect(index.lookup(container: 0, ["b", "f"]) == id)
        #expect(index.lookup(container: 0, ["new"]) != nil)
    }

    /// With someone recording (a live query, a clock handed out) the parts wait for the listing,
    /// whose change set tells every insertion.
    @Test func aRecordingBatchLeavesThePartsToTheListing() {
        var tree = TreeBuilder()
        let listing = tree.listing(Self.paths)
        let index = Self.index(tree.descriptor)
        let batches = Self.batches(listing, size: 3)
        for batch in batches.dropLast() { #expect(index.apply(batch).isEmpty) }
        #expect(index.entryCount == 0)
        let changes = index.apply(batches.last!)
        #expect(changes.changes.count > 5)
        #expect(Self.described(index) == Self.described(Self.index(tree.descriptor, applyingWhole: listing)))
    }

    /// Another change of the container between two parts (only a hand-made source can do that)
    /// ends them: the listing is applied whole and has the last word.
    @Test func aChangeBetweenPartsEndsThem() {
        var tree = TreeBuilder()
        let listing = tree.listing(Self.paths)
        let index = Self.index(tree.descriptor)
        var batches = Self.batches(listing, size: 4)
        batches.insert([.remove(tree.container, ["Documents"])], at: 1)
        for batch in batches { index.apply(batch, record: false) }
        #expect(index.listingInParts == nil)
        #expect(Self.described(index) == Self.described(Self.index(tree.descriptor, applyingWhole: listing)))
    }

    /// Parts are not journaled: the listing after them holds their entries.
    @Test func theJournalKeepsTheListingNotItsParts() throws {
        var tree = TreeBuilder()
        let listing = tree.listing(Self.paths)
        let changes = Self.batches(listing, size: 5).flatMap { $0 }
        let bytes = IndexJournal.header(snapshotID: 5, bootID: "boot-1") + IndexJournal.encode(.batch(changes, time: 1, tracking: false))
        let decoded = try #require(try IndexJournal.decode(bytes, snapshotID: 5))
        guard case .batch(let back, _, _)? = decoded.records.first, back.count == 1,
              case .listing(_, [], let kept) = back[0] else {
            Issue.record("decoded \(decoded.records)")
            return
        }
        guard case .listing(_, _, let original) = listing else { return }
        #expect(kept.entries.map(\.name) == original.entries.map(\.name))
    }

    /// A listing's record is written into a buffer sized ahead: at least its payload, so it is
    /// not grown and copied, and not wildly more (names of 1 to 200 bytes, statuses as a file
    /// system gives them, some of them huge sizes or tagged).
    @Test(arguments: [0, 1, 1000, 20000])
    func aListingsRecordFitsTheBufferSizedForIt(count: Int) throws {
        let entries = CrawlEntries((0..<count).map { i in
            CrawlListing.Entry(parent: Int32(i / 10) - 1, name: String(repeating: i % 3 == 0 ? "é" : "n", count: 1 + i % 100),
                               stat: FileStat(kind: i % 5 == 0 ? .directory : .regular, size: i % 7 == 0 ? Int64.max : Int64(i),
                                              modified: 1_764_000_000 + Int64(i), created: 1_764_000_000 + Int64(i),
                                              changed: 1_764_000_000 + Int64(i), uid: 1000, gid: 1000, inode: 1 << 31 + UInt64(i),
                                              tags: i % 11 == 0 ? ["Red"] : []))
        })
        let container = try ContainerID("com.example.sizes")
        let record = IndexJournal.Record.batch([.listing(container, ["a", "b"], CrawlListing(root: FileStat(kind: .directory), entries: entries))],
                                               time: 1, tracking: true)
        let payload = IndexJournal.encode(record).count - IndexJournal.frameSize
        let estimate = IndexJournal.estimatedPayloadBytes(record)
        #expect(estimate >= payload)
        #expect(estimate <= payload * 3 / 2 + 512)
    }
}
