import Testing
import UbiquityBinary
@testable import UbiquityIndex
import UbiquityTesting

/// A snapshot's slots in two halves decoded by two threads (format 3): the index restored is the
/// one saved, slot for slot, whatever the halves hold — long names compressed with one codec,
/// owners the first half never had, tags, sizes past 32 bits, dead slots — and a split that
/// does not hold is refused.
@Suite("Snapshot split")
struct SnapshotSplitTests {
    /// An index of `count` files in 40 directories; from `count / 2` on, files of other owners,
    /// tagged ones and sizes past 32 bits; names of every length, a third of them long enough to
    /// compress; every 50th file then removed (dead slots, a free list).
    static func index(count: Int) -> (MetadataIndex, ContainerDescriptor) {
        var tree = TreeBuilder()
        var entries: [CrawlListing.Entry] = []
        for d in 0..<40 { entries.append(CrawlListing.Entry(parent: -1, name: "dir\(d)", stat: tree.directory())) }
        var generator = SplitMix64(seed: 77)
        let pieces = ["é", "Ω", "日本", "🙂", "file-", "Item_", "долгое-имя-", "long-name-part-"]
        for i in 0..<count {
            var name = "\(i)-"
            let length = [4, 17, 60, 120][Int(generator.next() % 4)]
            while name.utf8.count < length { name += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let t = tree.tick()
            let late = i >= count / 2
            let stat = FileStat(kind: .regular, size: late && i % 7 == 0 ? Int64(1) << 33 : Int64(i % 50), modified: t, created: t,
                                changed: t, uid: late ? UInt32(1000 + i % 3) : 1000, gid: late ? UInt32(100 + i % 2) : 100,
                                inode: UInt64(i + 10), tags: late && i % 11 == 0 ? ["red", "t\(i % 5)"] : [])
            entries.append(CrawlListing.Entry(parent: Int32(i % 40), name: name, stat: stat))
        }
        let index = ListingPartsTests.index(tree.descriptor,
                                            applyingWhole: .listing(tree.container, [], CrawlListing(root: tree.directory(), entries: entries)))
        var kept = entries
        kept.removeAll { $0.parent >= 0 && Int($0.stat.inode) % 50 == 0 }
        index.apply([.listing(tree.container, [], CrawlListing(root: tree.directory(), entries: kept))], record: false)
        return (index, tree.descriptor)
    }

    static func encode(_ index: MetadataIndex) -> [UInt8] {
        IndexSnapshot.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)), snapshotID: 1, savedAt: 0, bootID: "b",
                             final: true, continues: nil)
    }

    static func restore(_ bytes: [UInt8], _ descriptor: ContainerDescriptor) throws -> RestoredIndex {
        try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [descriptor], retention: .init(), now: 0, bootID: "b")
    }

    @Test func twoHalvesGiveBackEverySlotAsSaved() throws {
        let (index, descriptor) = Self.index(count: 3 * IndexSnapshot.splitAlignment)
        let saved = index.slotColumns
        let split = IndexSnapshot.splitSlot(saved.names.count)
        #expect(split > 0 && split < saved.names.count, "the snapshot is split")
        #expect(saved.names.codec != nil, "long names were compressed")
        let restored = try Self.restore(Self.encode(index), descriptor)
        let columns = restored.index.slotColumns
        try #require(columns.names.count == saved.names.count)
        var dead = 0
        for i in 0..<saved.names.count {
            #expect(columns.flagsOf[i] == saved.flagsOf[i], "flags \(i)")
            #expect(columns.generations[i] == saved.generations[i], "generation \(i)")
            // A dead slot keeps nothing but its generation (the snapshot writes no more).
            guard saved.flagsOf[i].contains(.live) else {
                dead += 1
                continue
            }
            #expect(columns.names[i] == saved.names[i], "name \(i)")
            #expect(columns.stats[i] == saved.stats[i], "status \(i)")
            #expect(columns.parents[i] == saved.parents[i], "parent \(i)")
        }
        #expect(dead > 100, "dead slots in both halves")
        #expect(restored.index.free.map { $0 } == index.free.map { $0 })
        #expect(ListingPartsTests.described(restored.index) == ListingPartsTests.described(index))
        // The second half compresses with the first half's codec.
        let secondHalfCompressed = columns.names.withReader { reader in
            (split..<columns.names.count).filter { reader.isCompressed($0) }.count
        }
        #expect(secondHalfCompressed > 100)
        #expect(restored.nameIndexSource == .saved)
    }

    /// The first half's names are all too short to compress: the second trains its own codec
    /// (waiting for the first half to end without one), and the column keeps it.
    @Test func aSecondHalfWhoseFirstHalfHasNoCodecTrainsItsOwn() throws {
        var tree = TreeBuilder()
        let half = IndexSnapshot.splitAlignment
        let paths = (0..<(2 * half + 100)).map { i in
            i < half ? "d\(i % 10)/s\(i)" : "d\(i % 10)/\(i)-" + String(repeating: "ωмир日本", count: 5)
        }
        let index = ListingPartsTests.index(tree.descriptor, applyingWhole: tree.listing(paths))
        #expect(IndexSnapshot.splitSlot(index.slotColumns.names.count) > 0)
        let restored = try Self.restore(Self.encode(index), tree.descriptor)
        #expect(restored.index.slotColumns.names.codec != nil)
        #expect(ListingPartsTests.described(restored.index) == ListingPartsTests.described(index))
    }

    /// The split's slot or offset changed (the checksum made right): refused, never a trap.
    @Test(arguments: ["slot not at a chunk", "slot past the end", "offset past the end", "offset one byte on", "no split, an offset",
                      "no split, the largest offset", "no split, the largest offset, the checksum left wrong"])
    func aSplitThatDoesNotHoldIsRefused(_ damage: String) throws {
        // Found in review: with no split, the offset was added to the body's start unchecked, so
        // a flipped bit (read before the checksum is known) trapped instead of being refused.
        let unsplit = damage.hasPrefix("no split")
        let (index, descriptor) = Self.index(count: unsplit ? 100 : 2 * IndexSnapshot.splitAlignment + 10)
        var bytes = Self.encode(index)
        let view = IndexSnapshot.View(index, history: ChangeHistory(epoch: 1))
        var prefix = ByteWriter()
        let split = IndexSnapshot.splitSlot(index.slotColumns.names.count)
        IndexSnapshot.writePrefix(&prefix, view, snapshotID: 1, savedAt: 0, bootID: "b", final: true, continues: nil,
                                  split: split, splitOffset: 0)
        // The split's two numbers are the prefix's last 16 bytes.
        let at = IndexSnapshot.headerSize + prefix.bytes.count - 16
        func read(_ k: Int) -> UInt64 { bytes[(at + k)..<(at + k + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        func write(_ k: Int, _ value: UInt64) { bytes.replaceSubrange((at + k)..<(at + k + 8), with: withUnsafeBytes(of: value.littleEndian) { Array($0) }) }
        try #require(read(0) == UInt64(split) && (split > 0) != unsplit)
        switch damage {
        case "no split, an offset": write(8, 100)
        case "no split, the largest offset", "no split, the largest offset, the checksum left wrong": write(8, .max)
        case "slot not at a chunk": write(0, UInt64(split + 1))
        case "slot past the end": write(0, UInt64(16 * IndexSnapshot.splitAlignment))
        case "offset past the end": write(8, UInt64(bytes.count))
        default: write(8, read(8) + 1)
        }
        if !damage.hasSuffix("left wrong") { SavedNameOrderTests.rewriteHeader(&bytes) }
        #expect(throws: SavedIndexError.self) { try Self.restore(bytes, descriptor) }
    }
}
