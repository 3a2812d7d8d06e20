import Testing
import UbiquityBinary
@testable import UbiquityIndex
import UbiquityPredicate

/// The name index's order saved in a snapshot (format 3): taken back when it is exactly what
/// sorting the names gives, sorted again when it is not (never a wrong index), and a snapshot of
/// format 2, which has none, still restored.
@Suite("Saved name order")
struct SavedNameOrderTests {
    /// An index of names of every kind the order deals with: ASCII of both cases, non-ASCII,
    /// decomposed spellings, one name in several directories.
    static func index() -> (MetadataIndex, ContainerDescriptor) {
        var tree = TreeBuilder()
        let names = BulkNameIndexTests.names(3000, seed: 23, decomposed: true)
        let paths = names.enumerated().map { "Documents/d\($0.offset % 9)/\($0.element)" }
            + ["Documents/d1/Same", "Documents/d2/Same", "Documents/d3/same", "Documents/ABC", "Documents/abcé", "Documents/ABCé"]
        return (ListingPartsTests.index(tree.descriptor, applyingWhole: tree.listing(Array(Set(paths)))), tree.descriptor)
    }

    static func encode(_ view: IndexSnapshot.View) -> [UInt8] {
        IndexSnapshot.encode(view, snapshotID: 1, savedAt: 0, bootID: "b", final: true, continues: nil)
    }

    static func restore(_ bytes: [UInt8], _ descriptor: ContainerDescriptor) throws -> RestoredIndex {
        try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [descriptor], retention: .init(), now: 0, bootID: "b")
    }

    /// The header of a snapshot whose body the test changed, made right again (length, checksum).
    static func rewriteHeader(_ bytes: inout [UInt8], version: UInt32 = IndexSnapshot.formatVersion) {
        let body = Array(bytes[IndexSnapshot.headerSize...])
        bytes.replaceSubrange(0..<IndexSnapshot.headerSize,
                              with: IndexSnapshot.header(bodyLength: body.count, checksum: CRC32.checksum(body), version: version))
    }

    @Test func theSavedOrderIsTakenAndIsTheIndexTheSavedOneHad() throws {
        let (index, descriptor) = Self.index()
        let restored = try Self.restore(Self.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1))), descriptor)
        #expect(restored.nameIndexSource == .saved)
        #expect(restored.index.nameIndex.contents == index.nameIndex.contents)
        #expect(restored.index.nameIndex.contents.count > 20, "buckets of every kind")
        // It answers as the saved one did.
        for prefix in ["file_", "Item_", "é", "Same", "abc", "日本"] {
            let hint = NameHint([.prefix(prefix)])
            #expect(Set(restored.index.candidates(for: hint)) == Set(index.candidates(for: hint)), "\(prefix)")
        }
    }

    /// Ways a saved order can fail to be the sorted one: each is refused and the names sorted
    /// again, giving the index the saved one had.
    enum Damage: CaseIterable {
        case twoNeighboursSwapped, anIDInAnotherBucket, anIDTwice, anIDMissing, anIDPastTheSlots, theRootInPlaceOfANamedOne
        case aKeyInCapitals, anEmptyBucket
    }

    @Test(arguments: Damage.allCases)
    func aSavedOrderThatDoesNotHoldIsSortedAgain(_ damage: Damage) throws {
        let (index, descriptor) = Self.index()
        var view = IndexSnapshot.View(index, history: ChangeHistory(epoch: 1))
        var buckets = view.nameBuckets.mapValues(BulkNameIndexTests.ids)
        let big = try #require(buckets.max { $0.value.count < $1.value.count }).key
        let other = try #require(buckets.keys.sorted().first { $0 != big && $0.contains { $0.isLowercase } })
        switch damage {
        case .twoNeighboursSwapped: buckets[big]!.swapAt(3, 4)
        case .anIDInAnotherBucket: buckets[other]!.append(buckets[big]!.removeLast())
        case .anIDTwice: buckets[big]!.append(buckets[big]!.last!)
        case .anIDMissing: buckets[big]!.removeLast()
        case .anIDPastTheSlots: buckets[big]!.append(ItemID(index.slotColumns.names.count + 5))
        case .theRootInPlaceOfANamedOne:
            // Live but never named: only the check that each id is a named one refuses this.
            let columns = index.slotColumns
            let root = try #require((0..<columns.names.count).first { columns.flagsOf[$0].contains(.containerRoot) })
            buckets[big]!.removeLast()
            buckets[NameIndex.bucket(columns.names[root])] = [ItemID(root)]
        case .aKeyInCapitals: buckets[other.uppercased()] = buckets.removeValue(forKey: other)
        case .anEmptyBucket: buckets["zzz"] = []
        }
        view.nameBuckets = buckets.mapValues { ids in
            var sorted = SortedIDs()
            sorted.insert(sorted: ids, names: index.slotColumns.names)   // as given: no order is checked here
            return sorted
        }
        let restored = try Self.restore(Self.encode(view), descriptor)
        #expect(restored.nameIndexSource == .sortedSavedOrderRefused)
        #expect(restored.index.nameIndex.contents == index.nameIndex.contents)
    }

    /// Found in review: a name of 255 bytes can have a bucket key longer than 255 (lowercasing `İ`
    /// adds a byte; a character may hold any number of combining marks), and the key limit of 256
    /// refused every snapshot of an index holding one.
    @Test func aNameWhoseKeyIsLongerThanItselfIsSavedAndRestored() throws {
        var name = ""
        for _ in 0..<3 { name += "\u{130}" + String(repeating: "\u{301}", count: 41) }
        name += "\u{20D0}"
        #expect(name.utf8.count == 255)
        #expect(NameIndex.bucket(name).utf8.count > 255)
        var tree = TreeBuilder()
        let index = ListingPartsTests.index(tree.descriptor, applyingWhole: tree.listing(["Documents/" + name, "Documents/a"]))
        let restored = try Self.restore(Self.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1))), tree.descriptor)
        #expect(restored.nameIndexSource == .saved)
        #expect(ListingPartsTests.described(restored.index) == ListingPartsTests.described(index))
    }

    /// A snapshot of format 2 (written before the order was saved) is restored, its names sorted.
    @Test func aFormatTwoSnapshotIsRestoredItsNamesSorted() throws {
        let (index, descriptor) = Self.index()
        let view = IndexSnapshot.View(index, history: ChangeHistory(epoch: 1))
        var bytes = Self.encode(view)
        // Format 2's bytes: the same but for the version, the slots' split (the prefix's last 16
        // bytes) and the name order at the end.
        var order = ByteWriter()
        IndexSnapshot.writeNameOrder(&order, view.nameBuckets)
        bytes.removeLast(order.bytes.count)
        var prefix = ByteWriter()
        IndexSnapshot.writePrefix(&prefix, view, snapshotID: 1, savedAt: 0, bootID: "b", final: true, continues: nil,
                                  split: 0, splitOffset: 0)
        let headerSize = IndexSnapshot.headerSize
        bytes.removeSubrange((headerSize + prefix.bytes.count - 16)..<(headerSize + prefix.bytes.count))
        Self.rewriteHeader(&bytes, version: 2)
        let restored = try Self.restore(bytes, descriptor)
        #expect(restored.nameIndexSource == .sortedNoSavedOrder)
        #expect(restored.index.nameIndex.contents == index.nameIndex.contents)
        #expect(restored.entryCount == index.entryCount)
    }

    /// The order's ids are read in one copy: a count past the bytes left is refused, not a trap.
    @Test func aNameOrderCutShortIsRefused() throws {
        let (index, descriptor) = Self.index()
        var bytes = Self.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)))
        bytes.removeLast(6)
        Self.rewriteHeader(&bytes)
        #expect(throws: SavedIndexError.truncated) { try Self.restore(bytes, descriptor) }
        var reader = BinaryReader([1, 0, 0, 0, 2, 0, 0])
        #expect(try reader.fixed32s(1) == [1])
        #expect(throws: SavedIndexError.truncated) { try reader.fixed32s(1) }
    }
}
