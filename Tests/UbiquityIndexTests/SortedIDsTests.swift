import Testing
@testable import UbiquityIndex
import UbiquityTesting

/// The sorted chunks of the name index: order kept through random inserts and removals, and no
/// chunk holding much more room than ids (memory is per entry of the index).
@Suite("Sorted ids")
struct SortedIDsTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomInsertsAndRemovalsKeepOrderAndTightChunks(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let names = NameColumn((0..<5000).map { _ in "Item_\(random.next() % 1000)" })
        var sorted = SortedIDs()
        var ids = Array(0..<names.count).map { ItemID($0) }
        ids.shuffle(using: &random)
        for id in ids { sorted.insert(id, name: names[Int(id)], names: names) }
        for chunk in sorted.chunks {
            #expect(!chunk.isEmpty && chunk.count <= SortedIDs.chunkLimit)
            #expect(chunk.capacity <= chunk.count + chunk.count / 4 + 8, "capacity \(chunk.capacity) for \(chunk.count) ids")
        }
        let removed = Set(ids.prefix(2000))
        for id in ids.prefix(2000) { sorted.remove(id, name: names[Int(id)], names: names) }
        var walked: [ItemID] = []
        sorted.forEach(from: nil, names: names) { id, _ in
            walked.append(id)
            return true
        }
        func precedes(_ a: ItemID, _ b: ItemID) -> Bool {
            let (x, y) = (names[Int(a)], names[Int(b)])
            return x != y ? x < y : a < b
        }
        let expected = ids.filter { !removed.contains($0) }.sorted(by: precedes)
        #expect(walked == expected)
    }
}
