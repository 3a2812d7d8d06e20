import Testing
@testable import UbiquityIndex

/// Which containers a batch changes a top folder of (what the daemon's key-value stores reload
/// from, on the engine's apply path): an entry in the folder, the folder itself, a move in or
/// out, or a whole container's listing — and nothing else.
struct ChangeBatchFolderTests {
    let a = try! ContainerID("com.example.a")
    let b = try! ContainerID("com.example.b")
    let c = try! ContainerID("com.example.c")
    let folder = ".ubiquity-kv"

    @Test func theFolderItsEntriesMovesInAndOutAndWholeListingsCount() {
        let stat = FileStat(kind: .directory)
        let touching = ChangeBatch(sequence: 1, changes: [
            .stat(a, [folder, "phone.json"], stat),
            .move(b, from: ["Documents", "x"], to: [folder, "x"], stat: stat),
            .listing(c, [], CrawlListing(root: stat)),
        ])
        #expect(touching.containers(touching: folder) == [a, b, c])
        let moveOut = ChangeBatch(sequence: 2, changes: [.move(a, from: [folder, "t"], to: ["t"], stat: nil), .remove(b, [folder])])
        #expect(moveOut.containers(touching: folder) == [a, b])
    }

    @Test func otherPathsAndListingPartsDoNot() {
        let stat = FileStat(kind: .directory)
        let batch = ChangeBatch(sequence: 1, changes: [
            .stat(a, ["Documents", folder], stat),
            .remove(b, [folder + "x"]),
            .listing(c, ["Documents"], CrawlListing(root: stat)),
            .tags(a, ["Documents", "item"], directoryInode: 1, [:]),
            .listingPart(b, CrawlListing.Part(root: stat, first: 0, entries: [])),
        ])
        #expect(batch.containers(touching: folder).isEmpty)
    }
}
