import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The index's statuses packed in 48 bytes a slot (``StatColumn``): every field comes back as it
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
}
