import Synchronization
import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The incremental encoder writes exactly what a full encode writes, after any edits, while
/// re-encoding only the pieces the edits touched.
struct IncrementalSnapshotEncoderTests {
    @Test func incrementalEncodingAfterRandomEditsIsByteIdenticalToAFullEncode() throws {
        var tree = TreeBuilder()
        let c = tree.container
        let count = IncrementalSnapshotEncoder.slotRange * 3 + 700
        var paths = (0..<count).map { ["Documents", "d\($0 % 7)", "Item_\($0)"] }
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(paths.map { $0.joined(separator: "/") })], record: false)
        var history = ChangeHistory(epoch: 1, retention: ChangeHistory.Retention(maxChanges: 5_000))
        _ = history.handOut()
        var encoder = IncrementalSnapshotEncoder()
        var generator = SplitMix64(seed: 34)
        var now: Int64 = 1_800_000_000

        func check(_ round: Int) throws -> IncrementalSnapshotEncoder.Counts {
            let view = IndexSnapshot.View(index, history: history)
            let full = IndexSnapshot.encode(view, snapshotID: UInt64(round), savedAt: now, bootID: "boot-1", final: true, continues: nil)
            let incremental = encoder.encode(view, snapshotID: UInt64(round), savedAt: now, bootID: "boot-1", final: true,
                                             continues: nil)
            #expect(incremental == full, "round \(round)")
            let restored = try RestoredIndex.restore(snapshot: incremental, journal: nil, containers: [tree.descriptor],
                                                     retention: history.retention, now: now, bootID: "boot-1")
            #expect(restored.index.entryCount == index.entryCount)
            return encoder.lastCounts
        }

        let first = try check(0)
        #expect(first.reused == 0)
        #expect(try check(1).encoded == 0, "nothing changed, nothing encoded again")
        for round in 2..<30 {
            var batch: [FileSystemChange] = []
            for _ in 0..<Int(generator.next() % 12) + 1 {
                let i = Int(generator.next() % UInt64(paths.count))
                switch generator.next() % 4 {
                case 0: batch.append(.stat(c, paths[i], tree.file(Int64(generator.next() % 1_000))))
                case 1: batch.append(.remove(c, paths[i]))
                case 2:
                    let to = ["Documents", "d\(generator.next() % 7)", "Moved_\(round)_\(i)"]
                    batch.append(.move(c, from: paths[i], to: to, stat: nil))
                    paths[i] = to
                default:
                    let path = ["Documents", "New_\(round)_\(i)"]
                    batch.append(.stat(c, path, tree.file(5)))
                    paths.append(path)
                }
            }
            now += 1
            history.record(index.apply(batch), now: now)
            index.endBatch()
            let counts = try check(round)
            #expect(counts.encoded <= 2 * 12 + 2, "round \(round): \(counts)")
        }
    }

    /// With a way to read the written file back, the encoder keeps no copy of the pieces: the
    /// unchanged ones come back from the file, byte for byte, and a file that cannot be read, or
    /// reads other bytes, has every piece encoded again.
    @Test func piecesAreReadBackFromTheWrittenFileInsteadOfKeptInMemory() throws {
        var tree = TreeBuilder()
        let c = tree.container
        let count = IncrementalSnapshotEncoder.slotRange * 4 + 300
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing((0..<count).map { "Documents/d\($0 % 5)/Item_\($0)" })], record: false)
        var history = ChangeHistory(epoch: 1, retention: ChangeHistory.Retention(maxChanges: 5_000))
        _ = history.handOut()
        var encoder = IncrementalSnapshotEncoder()
        let file = WrittenFile()
        let readBack: SnapshotReadBack = { offset, destination in
            file.state.withLock { file in
                file.reads += 1
                let disk = file.disk
                guard offset >= 0, offset <= disk.count, destination.count <= disk.count - offset else { return false }
                disk.withUnsafeBytes { destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + destination.count)])) }
                return true
            }
        }
        var reads: Int { file.state.withLock { $0.reads } }
        var now: Int64 = 1_800_000_000

        func save(_ round: Int, write: Bool = true) -> IncrementalSnapshotEncoder.Counts {
            let view = IndexSnapshot.View(index, history: history)
            let full = IndexSnapshot.encode(view, snapshotID: UInt64(round), savedAt: now, bootID: "boot-1", final: false, continues: nil)
            let written = encoder.encode(view, snapshotID: UInt64(round), savedAt: now, bootID: "boot-1", final: false,
                                         continues: nil, readBack: readBack)
            #expect(written == full, "round \(round)")
            if write {
                file.state.withLock { $0.disk = written }
                encoder.written()
            } else {
                encoder.notWritten()
            }
            return encoder.lastCounts
        }

        let first = save(0)
        #expect(first.reused == 0 && first.encoded > 4)
        #expect(encoder.storedPieces == first.encoded, "every piece is in the file, none in memory")
        #expect(reads == 0)

        // One change: its piece is encoded again, every other one read back.
        now += 1
        history.record(index.apply([.stat(c, ["Documents", "d1", "Item_1"], tree.file(77))]), now: now)
        index.endBatch()
        let second = save(1)
        #expect(second.encoded <= 3, "\(second)")
        #expect(reads == second.reused)
        let pieces = second.reused + second.encoded
        #expect(encoder.storedPieces == pieces)

        // The file on disk is not what was written (a flipped byte): every piece is encoded again,
        // and the snapshot is still exactly a full encode's.
        file.state.withLock { $0.disk[$0.disk.count / 2] ^= 0xFF }
        let third = save(2)
        #expect(third.encoded == pieces && third.reused == 0)

        // The file could not be read at all (removed): the same.
        file.state.withLock { $0.disk = [] }
        let fourth = save(3)
        #expect(fourth.encoded == pieces && fourth.reused == 0)

        // A file that was not written: the next encode reads nothing back from the one before.
        _ = save(4, write: false)
        file.state.withLock { $0.reads = 0 }
        let sixth = save(5)
        #expect(sixth.reused == 0 && reads == 0)

        // Without a way to read back, the bytes stay in memory as before.
        var memoryOnly = IncrementalSnapshotEncoder()
        let view = IndexSnapshot.View(index, history: history)
        _ = memoryOnly.encode(view, snapshotID: 9, savedAt: now, bootID: "boot-1", final: false, continues: nil)
        memoryOnly.written()
        #expect(memoryOnly.storedPieces == 0)
        let again = memoryOnly.encode(view, snapshotID: 10, savedAt: now, bootID: "boot-1", final: false, continues: nil)
        #expect(again == IndexSnapshot.encode(view, snapshotID: 10, savedAt: now, bootID: "boot-1", final: false, continues: nil))
        #expect(memoryOnly.lastCounts.encoded == 0)
    }
}

/// The file a test's snapshots are written to, and how often it was read back.
private final class WrittenFile: Sendable {
    let state = Mutex((disk: [UInt8](), reads: 0))
}
