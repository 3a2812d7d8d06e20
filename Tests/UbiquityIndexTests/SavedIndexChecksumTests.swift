import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The saved index's CRC-32 moved from a table in this module to zlib's `crc32_z`: a snapshot
/// and journal are byte for byte what the table wrote, so indexes saved before the change load.
@Suite("Saved index checksums")
struct SavedIndexChecksumTests {
    /// The CRC-32 this module computed before zlib, one byte at a time: the reference.
    static func tableCRC(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    static func le32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    @Test func aSnapshotAndJournalSealedByTheOldTableLoad() async throws {
        var rig = await SavedIndexTests.Rig(paths: ["Documents/Item_1", "Documents/folder/Item_2"])
        try await rig.engine.saveIndex()
        await rig.apply([.stat(rig.tree.container, ["Documents", "Item_3"], rig.tree.file())])
        let snapshot = try #require(rig.persistence.snapshot)
        let journal = rig.persistence.journal

        // Snapshot: magic, version (4), length (8), CRC (4), body.
        let crcAt = IndexSnapshot.magic.count + 12
        #expect(Self.le32(snapshot, at: crcAt) == Self.tableCRC(snapshot[(crcAt + 4)...]))
        // Journal: header, then records framed as length (4), CRC (4), payload.
        var offset = IndexJournal.header(snapshotID: 0, bootID: rig.persistence.bootID).count
        var records = 0
        while offset < journal.count {
            let length = Int(Self.le32(journal, at: offset))
            let payload = journal[(offset + 8)..<(offset + 8 + length)]
            #expect(Self.le32(journal, at: offset + 4) == Self.tableCRC(payload))
            offset += 8 + length
            records += 1
        }
        #expect(records >= 1)
        let engine = try rig.restarted()
        #expect(SavedIndexTests.names(try await SavedIndexTests.gather(engine).results) == ["Item_1", "Item_2", "Item_3"])
    }
}
