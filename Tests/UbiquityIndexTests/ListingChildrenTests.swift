import Testing
@testable import UbiquityIndex

/// A listing's entries grouped by parent (``ListingChildren``), as the diff of a listing walks them.
@Suite("Listing children")
struct ListingChildrenTests {
    static func entries(parents: [Int32]) -> CrawlEntries {
        CrawlEntries(parents.enumerated().map { position, parent in
            CrawlListing.Entry(parent: parent, name: "e\(position)", stat: FileStat(kind: .directory))
        })
    }

    @Test func eachParentsEntriesInListingOrder() {
        // A tree whose children are not next to each other: 0 and 3 under the root, 1, 2, 5 under 0,
        // 4 under 3, 6 under 5.
        let children = ListingChildren(Self.entries(parents: [-1, 0, 0, -1, 3, 0, 5]))
        #expect(Array(children[-1]) == [0, 3])
        #expect(Array(children[0]) == [1, 2, 5])
        #expect(Array(children[3]) == [4])
        #expect(Array(children[5]) == [6])
        for leaf: Int32 in [1, 2, 4, 6] { #expect(children[leaf].isEmpty) }
    }

    @Test func positionsOutsideTheListingHaveNoEntries() {
        // A parent past the end (or before the root) puts its entry in no group; asking for such a
        // position gives none rather than trapping.
        let children = ListingChildren(Self.entries(parents: [-1, 7, -2, 0]))
        #expect(Array(children[-1]) == [0])
        #expect(Array(children[0]) == [3])
        for outside: Int32 in [-5, -2, 4, 7, .max, .min] { #expect(children[outside].isEmpty) }
        #expect(ListingChildren(CrawlEntries())[-1].isEmpty)
    }
}
