import Testing
@testable import UbiquityIndex
import UbiquityPredicate

/// Sizes come from the file system: a sum of them must clamp, never trap.
@Suite struct SaturatingSizeTests {
    @Test func twoFilesOfFiveExbibytesMakeAPackageOfInt64Max() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/x.gro/a", "Documents/x.gro/b"])])
        let huge = tree.file(5 << 60)
        index.apply([.stat(tree.container, tree.components("Documents/x.gro/a"), huge),
                     .stat(tree.container, tree.components("Documents/x.gro/b"), huge)])
        let package = try #require(index.lookup(container: 0, tree.components("Documents/x.gro")))
        #expect(IndexedItem(index, package).value(of: .size) == .integer(.max))
    }

    @Test func saturationClampsBothWays() {
        #expect(Int64.max.addingSaturated(1) == .max)
        #expect(Int64.min.addingSaturated(-1) == .min)
        #expect(Int64(40).addingSaturated(2) == 42)
    }
}
