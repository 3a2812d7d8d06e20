import Testing
@testable import UbiquityIndex

/// Sizes come from the file system; their sums must clamp, never trap (a trap here crashed the
/// daemon at every start once two 5 EiB sparse files sat in one package).
@Suite struct PackageSizeSaturationTests {
    @Test func twoFilesNearInt64MaxInOnePackageSumToInt64Max() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/big.gro/a", "Documents/big.gro/b"])])
        let huge = Int64.max - 10
        index.apply([
            .stat(tree.container, tree.components("Documents/big.gro/a"), tree.file(huge)),
            .stat(tree.container, tree.components("Documents/big.gro/b"), tree.file(huge)),
        ])
        let package = try #require(index.lookup(container: 0, tree.components("Documents/big.gro")))
        #expect(IndexedItem(index, package).value(of: .size) == .integer(.max))
    }

    @Test func saturatingAddingClampsBothWays() {
        #expect(Int64.max.saturatingAdding(1) == .max)
        #expect(Int64.min.saturatingAdding(-1) == .min)
        #expect(Int64(40).saturatingAdding(2) == 42)
    }
}
