import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The index's statuses packed in 40 bytes a slot (``StatColumn``): every field comes back as it
/// went in, tags and owners included; a copy (a snapshot) keeps what it took; a write of a slot,
/// even of its tags alone, gives its chunk a new identity (what the incremental snapshot trusts).
struct StatColumnTests {
    static func stat(_ random: inout SplitMix64) -> FileStat {
        let kinds: [FileStat.Kind] = [.regular, .directory, .symlink, .other]
        let tagChoices: [[String]] = [[], [], [], ["Red"], ["Red", "Work"], ["é", "日本"]]
        var stat = FileStat(kind: kinds[Int(random.next() % 4)],
                            size: Int64(bitPattern: random.next()), modified: Int64(bitPattern: random.next()),
                            created: Int64(bitPattern: random.next()), changed: Int64(bitPattern: random.next()),
                            mode: UInt32(random.next() % 0o10000), uid: [0, 1000, 4_294_967_295][Int(random.next() % 3)],
                            gid: [0, 1000, 65534, 4_294_967_294][Int(random.next() % 4)], inode: random.next(),
                            tags: tagChoices[Int(random.next() % UInt64(tagChoices.count))])
        stat.evicted = random.next() % 5 == 0
        return stat
    }

    @Test func everyFieldComesBackAcrossChunksAndOverwrites() {
        var random = SplitMix64(seed: 7)
        let count = StatColumn.chunkSize * 2 + 9
        var expected = (0..<count).map { _ in Self.stat(&random) }
        var column = StatColumn()
        for stat in expected { column.append(stat) }
        #expect(column.count == count)
        for i in 0..<count { #expect(column[i] == expected[i], "slot \(i)") }
        // Overwrites: tags dropped, tags added, another owner, another kind.
        for _ in 0..<2_000 {
            let i = Int(random.next() % UInt64(count))
            expected[i] = Self.stat(&random)
            column[i] = expected[i]
        }
        for i in 0..<count { #expect(column[i] == expected[i], "slot \(i) after overwrites") }
        #expect(MemoryLayout<FileStat>.stride == 64)
        #expect(StatColumn.slotBytes == 40)
    }

    /// Sizes of 4 GiB − 1 and more (and below 0) live beside the slots; a slot that changes from
    /// one kind of size to the other reads back its own, and a copy keeps the one it took.
    @Test func sizesThatDoNotFitFourBytesComeBack() {
        let sizes: [Int64] = [0, 49, Int64(UInt32.max) - 1, Int64(UInt32.max), Int64(UInt32.max) + 1,
                              1 << 40, .max, -1, .min]
        var column = StatColumn()
        for size in sizes { column.append(FileStat(kind: .regular, size: size)) }
        for (i, size) in sizes.enumerated() { #expect(column[i].size == size, "slot \(i)") }
        let taken = column
        // Each slot gets the size of the slot across: small ↔ large both ways.
        for (i, size) in sizes.reversed().enumerated() { column[i] = FileStat(kind: .regular, size: size) }
        for (i, size) in sizes.reversed().enumerated() { #expect(column[i].size == size, "slot \(i) rewritten") }
        for (i, size) in sizes.enumerated() { #expect(taken[i].size == size, "the copy's slot \(i)") }
    }

    /// More than 65,535 owners (only root makes such a tree): places from 65,535 on live beside
    /// the slots, and every slot keeps its own owner through overwrites.
    @Test func ownersBeyondTwoBytesOfPlacesComeBack() {
        let count = 70_000
        var column = StatColumn()
        for i in 0..<count { column.append(FileStat(kind: .regular, uid: UInt32(i), gid: UInt32(i) &* 3)) }
        for i in stride(from: 0, to: count, by: 97) + [65_534, 65_535, 65_536, count - 1] {
            #expect(column[i].uid == UInt32(i) && column[i].gid == UInt32(i) &* 3, "slot \(i)")
        }
        // A slot with a large place given a small one, and the other way round.
        column[count - 1] = FileStat(kind: .regular, uid: 0, gid: 0)
        column[0] = FileStat(kind: .regular, uid: UInt32(count - 2), gid: UInt32(count - 2) &* 3)
        #expect(column[count - 1].uid == 0 && column[count - 1].gid == 0)
        #expect(column[0].uid == UInt32(count - 2) && column[0].gid == UInt32(count - 2) &* 3)
        #expect(column[65_535].uid == 65_535)
    }

    @Test func aCopyKeepsWhatItTookAndAWriteRenewsTheChunk() {
        var column = StatColumn()
        var tagged = FileStat(kind: .regular, size: 1, uid: 5, gid: 6)
        tagged.tags = ["Blue"]
        for _ in 0..<(StatColumn.chunkSize + 1) { column.append(tagged) }
        let taken = column
        let before = ObjectIdentifier(column.chunkOwner(1))
        #expect(ObjectIdentifier(taken.chunkOwner(1)) == before)
        // Only the tags change: the slot's packed bytes stay the same, its chunk must not.
        var untagged = tagged
        untagged.tags = []
        column[StatColumn.chunkSize] = untagged
        #expect(ObjectIdentifier(column.chunkOwner(1)) != before)
        #expect(ObjectIdentifier(column.chunkOwner(0)) == ObjectIdentifier(taken.chunkOwner(0)))
        #expect(column[StatColumn.chunkSize].tags == [] && taken[StatColumn.chunkSize].tags == ["Blue"])
        column[0] = FileStat(kind: .directory, uid: 7, gid: 8)
        #expect(taken[0] == tagged && column[0].uid == 7 && column[0].gid == 8 && column[0].kind == .directory)
    }

    /// `holds` (a restart's check: is this listed status what the slot has?) answers as building
    /// the slot's status and comparing does, for statuses the same but for one field, tags
    /// deferred or read, large sizes and owners beyond two bytes of places among them.
    @Test func holdsAnswersAsComparingTheBuiltStatus() {
        var random = SplitMix64(seed: 11)
        var column = StatColumn()
        var slots: [FileStat] = []
        for k in 0..<(StatColumn.chunkSize + 70_000) {
            var stat = Self.stat(&random)
            // Past the first chunk, each slot a new owner: places beyond two bytes.
            if k >= StatColumn.chunkSize { stat.uid = UInt32(k); stat.gid = UInt32(k) }
            if random.next() % 7 == 0 { stat.size = Int64(UInt32.max) + Int64(random.next() % 3) - 1 }
            column.append(stat)
            slots.append(stat)
        }
        var agreed = 0, held = 0
        for _ in 0..<60_000 {
            let i = Int(random.next() % UInt64(slots.count))
            var listed = column[i]
            let other = Self.stat(&random)
            // Half the time one field differs, half the time none.
            switch random.next() % 22 {
            case 0: listed.size = other.size
            case 1: listed.modified = other.modified
            case 2: listed.created = other.created
            case 3: listed.changed = other.changed
            case 4: listed.inode = other.inode
            case 5: listed.mode = other.mode
            case 6: listed.uid = other.uid
            case 7: listed.gid = other.gid
            case 8: listed.kind = other.kind
            case 9: listed.evicted.toggle()
            case 10: listed.tags = other.tags
            default: break
            }
            listed.tagsDeferred = random.next() % 2 == 0
            let slot = column[i]
            let compared = slot == MetadataIndex.stored(MetadataIndex.keepingTags(listed, of: slot))
            #expect(column.holds(listed, at: i) == compared, "slot \(i): \(slot) against \(listed)")
            if column.holds(listed, at: i) == compared { agreed += 1 }
            if compared { held += 1 }
        }
        // Both answers came up often enough for the comparison to mean something.
        #expect(agreed == 60_000 && held > 20_000 && held < 50_000)
    }
}
