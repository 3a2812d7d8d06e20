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
        var generator = SplitMix(seed: 34)
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
}

/// A small deterministic generator, so that a failure repeats.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
