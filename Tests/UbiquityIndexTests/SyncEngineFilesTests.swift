import Testing
@testable import UbiquityIndex
import UbiquityPredicate

/// A sync engine's own files are never items: not with hidden files asked for, not inside a
/// package's size, and a received file renamed into place is one insert of the real name.
@Suite("Sync engine files")
struct SyncEngineFilesTests {
    @Test func theTableNamesSyncthingsFilesAndNothingElse() {
        for name in [".stfolder", ".stignore", ".stversions", ".syncthing.Item_1.tmp", "~syncthing~Item_1.tmp"] {
            #expect(SyncEngineFiles.isOwn(name), "\(name)")
        }
        for name in ["Item_1", ".hidden", "stfolder", ".syncthing.Item_1", "notes.tmp", "Item_1.sync-conflict-20261122-034428-NOFER4Z"] {
            #expect(!SyncEngineFiles.isOwn(name), "\(name)")
        }
    }

    static let everything = try! MetadataPredicate(parsing: "kMDItemFSInvisible == YES OR kMDItemFSInvisible == NO")

    @Test func theyAreNeverResultsEvenWithHiddenFilesAskedFor() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing([".stfolder/", ".stignore", ".stversions/Documents/old~20261122", "Documents/Item_1",
                                   "Documents/.syncthing.Item_2.tmp", "Documents/.hidden", "Documents/list.gro/items.json",
                                   "Documents/list.gro/~syncthing~items.json.tmp"])])
        let query = LiveQuery(QuerySpecification(predicate: Self.everything), index: index, context: EvaluationContext())
        let names = Set(query.gather().map { $0.path.split(separator: "/").last.map(String.init) ?? "" })
        #expect(names == ["Documents", "Item_1", ".hidden", "list.gro"])
        let package = try #require(index.lookup(container: 0, ["Documents", "list.gro"]))
        let inside = try #require(index.lookup(container: 0, ["Documents", "list.gro", "items.json"]))
        #expect(index.packageTotals(package).size == index.stat(inside).size, "the temp file counted in the package's size")
    }

    @Test func aReceivedFileRenamedIntoPlaceIsOneInsertOfItsRealName() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/"])])
        let arriving = index.apply([.stat(tree.container, ["Documents", ".syncthing.Item_1.tmp"], tree.file(3))])
        #expect(arriving.isEmpty, "a file still being received is no change")
        let landed = index.apply([.move(tree.container, from: ["Documents", ".syncthing.Item_1.tmp"], to: ["Documents", "Item_1"],
                                        stat: tree.file(3))])
        #expect(landed.changes.values.map(\.kind) == [.inserted])
        let id = try #require(index.lookup(container: 0, ["Documents", "Item_1"]))
        #expect(index.isItem(id))
    }
}
