import Testing
@testable import UbiquityIndex
import UbiquityPredicate

@Suite("MetadataIndex: applying changes")
struct MetadataIndexTests {
    func makeIndex(_ tree: inout TreeBuilder, _ paths: [String]) -> (MetadataIndex, ChangeSet) {
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        let changes = index.apply([tree.listing(paths)])
        return (index, changes)
    }

    func id(_ index: MetadataIndex, _ path: String) -> ItemID? {
        index.lookup(container: 0, path.split(separator: "/").map(String.init))
    }

    func value(_ index: MetadataIndex, _ path: String, _ attribute: Attribute) -> Value? {
        guard let id = id(index, path) else { return nil }
        return IndexedItem(index, id).value(of: attribute)
    }

    @Test func aCrawlListingInsertsEveryEntryAsAnItem() {
        var tree = TreeBuilder()
        let (index, changes) = makeIndex(&tree, ["Documents/Item_1", "Documents/Item_2", "Library/app.log", "empty/"])
        #expect(index.itemCount == 6)   // Documents, Library, empty + 3 files
        #expect(changes.count == 6)
        #expect(changes.changes.values.allSatisfy { $0.kind == .inserted })
        #expect(value(index, "Documents/Item_1", .path) == .string("/containers/com.example.test/Documents/Item_1"))
        #expect(value(index, "Documents/Item_1", .scope) == .string("documents"))
        #expect(value(index, "Documents", .scope) == .string("documents"))
        #expect(value(index, "Library/app.log", .scope) == .string("data"))
        #expect(value(index, "Library/app.log", .contentType) == .string("public.log"))
        #expect(value(index, "Library/app.log", .contentTypeTree)
            == .list(["public.log", "public.plain-text", "public.text", "public.data", "public.item"].map(Value.string)))
        #expect(value(index, "Library/app.log", .displayName) == .string("app"))
        #expect(value(index, "Documents/Item_1", .displayName) == .string("Item_1"))
        #expect(value(index, "empty", .isDirectory) == .bool(true))
        #expect(value(index, "empty", .contentType) == .string("public.folder"))
        #expect(value(index, "Documents/Item_1", .container) == .string("com.example.test"))
        #expect(value(index, "Documents/Item_1", .url) == .string("file:///containers/com.example.test/Documents/Item_1"))
    }

    /// A crawl of watched directories lists statuses without tags (``FileStat/tagsDeferred``):
    /// the index keeps the tags it has; the tag pass's `.tags` sets them for a whole directory,
    /// and only for the directory it read (same inode).
    @Test func deferredTagsAreKeptAndTheTagPassSetsThem() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/a", "Documents/b"])
        let c = tree.container
        let folder = try #require(id(index, "Documents"))
        let inode: UInt64 = 77
        var folderStat = index.stat(folder)
        folderStat.inode = inode
        index.apply([.stat(c, ["Documents"], folderStat)])

        let tagged = index.apply([.tags(c, ["Documents"], directoryInode: inode, ["a": ["x", "y"]])])
        #expect(tagged.count == 1)
        #expect(value(index, "Documents/a", .userTags) == .list([.string("x"), .string("y")]))
        #expect(value(index, "Documents/b", .userTags) == nil)

        // Another directory at that path now (its inode differs): nothing changes.
        #expect(index.apply([.tags(c, ["Documents"], directoryInode: inode + 1, [:])]).count == 0)
        #expect(value(index, "Documents/a", .userTags) == .list([.string("x"), .string("y")]))

        // A rescan's status without tags keeps them; its other fields change.
        var rescanned = index.stat(try #require(id(index, "Documents/a")))
        rescanned.tags = []
        rescanned.tagsDeferred = true
        rescanned.size += 5
        #expect(index.apply([.listing(c, ["Documents", "a"], CrawlListing(root: rescanned))]).count == 1)
        let kept = index.stat(try #require(id(index, "Documents/a")))
        #expect(kept.tags == ["x", "y"] && !kept.tagsDeferred && kept.size == rescanned.size)

        // The tag pass after it: entries not listed have no tags.
        #expect(index.apply([.tags(c, ["Documents"], directoryInode: inode, ["b": ["z"]])]).count == 2)
        #expect(value(index, "Documents/a", .userTags) == nil)
        #expect(value(index, "Documents/b", .userTags) == .list([.string("z")]))
    }

    @Test func hiddenNamesAndEverythingBelowThemAreHidden() {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, [".git/objects/ab", "a~", "#a#", "Documents/.tmp.x", "Documents/x"])
        #expect(value(index, ".git/objects/ab", .isHidden) == .bool(true))
        #expect(value(index, "a~", .isHidden) == .bool(true))
        #expect(value(index, "#a#", .isHidden) == .bool(true))
        #expect(value(index, "Documents/.tmp.x", .isHidden) == .bool(true))
        #expect(value(index, "Documents/x", .isHidden) == .bool(false))
    }

    @Test func aPackageIsOneItemWithTheSumOfItsContents() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/grocery.gro/items.json", "Documents/grocery.gro/images/a.png"])
        let package = try #require(id(index, "Documents/grocery.gro"))
        #expect(index.isItem(package))
        #expect(value(index, "Documents/grocery.gro", .isPackage) == .bool(true))
        #expect(value(index, "Documents/grocery.gro", .contentType) == .string("com.example.grocery.package"))
        #expect(value(index, "Documents/grocery.gro", .contentTypeTree)
            == .list(["com.example.grocery.package", "com.apple.package", "public.directory", "public.item"].map(Value.string)))
        let inner = "Documents/grocery.gro/items.json".count + "Documents/grocery.gro/images/a.png".count
        #expect(value(index, "Documents/grocery.gro", .size) == .integer(Int64(inner)))
        #expect(!index.isItem(try #require(id(index, "Documents/grocery.gro/items.json"))))

        // A write inside is one `updated` of the package.
        let bigger = tree.file(1000)
        let changes = index.apply([.stat(tree.container, tree.components("Documents/grocery.gro/items.json"), bigger)])
        #expect(changes.count == 1)
        #expect(changes.changes[package]?.kind == .updated)
        #expect(value(index, "Documents/grocery.gro", .size) == .integer(Int64(1000 + "Documents/grocery.gro/images/a.png".count)))
        #expect(value(index, "Documents/grocery.gro", .contentChangeDate) == .date(Double(bigger.modified) / 1e9))
    }

    @Test func anAtomicSaveKeepsTheTargetsIdentityAndIsOneUpdate() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/Item_1"])
        let target = try #require(id(index, "Documents/Item_1"))
        let identity = index.identity(target)
        let saved = tree.file(42)
        let changes = index.apply([
            .stat(tree.container, tree.components("Documents/.Item_1.tmp"), saved),
            .move(tree.container, from: tree.components("Documents/.Item_1.tmp"), to: tree.components("Documents/Item_1"), stat: saved),
        ])
        #expect(changes.count == 1)          // the temp file came and went within the batch
        #expect(changes.changes[target]?.kind == .updated)
        #expect(index.identity(try #require(id(index, "Documents/Item_1"))) == identity)
        #expect(value(index, "Documents/Item_1", .size) == .integer(42))
        #expect(id(index, "Documents/.Item_1.tmp") == nil)
    }

    @Test func aRenameKeepsIdentityAndRecordsTheOldPath() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/dir/a", "Documents/dir/sub/b"])
        let dir = try #require(id(index, "Documents/dir"))
        let b = try #require(id(index, "Documents/dir/sub/b"))
        let changes = index.apply([.move(tree.container, from: tree.components("Documents/dir"),
                                         to: tree.components("Documents/renamed"), stat: nil)])
        #expect(id(index, "Documents/renamed/sub/b") == b)
        #expect(id(index, "Documents/dir") == nil)
        #expect(changes.changes[dir]?.oldPath == "/containers/com.example.test/Documents/dir")
        #expect(changes.changes[b]?.oldPath == "/containers/com.example.test/Documents/dir/sub/b")
        #expect(changes.changes[b]?.kind == .updated)
        #expect(index.candidates(for: NameHint([.exact("renamed")])) == [dir])
        #expect(index.candidates(for: NameHint([.exact("dir")])).isEmpty)
    }

    /// A listing (a crawl after a restart, a rescan after an overflow) that shows an entry gone
    /// and the same file (kind, inode, birth time) under a new name: a rename, identity kept,
    /// subtree and all; an inode reused by a new file (another birth time) is not one.
    @Test func aListingThatRevealsARenameKeepsIdentity() throws {
        let tree = TreeBuilder()
        func entry(_ parent: Int32, _ name: String, _ kind: FileStat.Kind, inode: UInt64, born: Int64) -> CrawlListing.Entry {
            CrawlListing.Entry(parent: parent, name: name, stat: FileStat(kind: kind, size: 1, modified: born, created: born,
                                                                          changed: born, inode: inode))
        }
        let root = FileStat(kind: .directory, inode: 1)
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([.listing(tree.container, [], CrawlListing(root: root, entries: [
            entry(-1, "Documents", .directory, inode: 2, born: 10), entry(0, "dir", .directory, inode: 3, born: 100),
            entry(1, "b", .regular, inode: 4, born: 200), entry(0, "x", .regular, inode: 5, born: 300),
            entry(0, "y", .regular, inode: 6, born: 400),
        ]))])
        let dir = try #require(id(index, "Documents/dir")), b = try #require(id(index, "Documents/dir/b"))
        let x = try #require(id(index, "Documents/x")), y = try #require(id(index, "Documents/y"))
        let changes = index.apply([.listing(tree.container, [], CrawlListing(root: root, entries: [
            entry(-1, "Documents", .directory, inode: 2, born: 10), entry(0, "moved", .directory, inode: 3, born: 100),
            entry(1, "b", .regular, inode: 4, born: 200), entry(0, "Item_x", .regular, inode: 5, born: 300),
            entry(0, "y2", .regular, inode: 6, born: 999),
        ]))])
        #expect(id(index, "Documents/moved") == dir && id(index, "Documents/moved/b") == b && id(index, "Documents/Item_x") == x)
        #expect(changes.changes[b]?.kind == .updated && changes.changes[b]?.oldPath == "/containers/com.example.test/Documents/dir/b")
        #expect(changes.changes[x]?.kind == .updated && changes.changes[x]?.oldPath == "/containers/com.example.test/Documents/x")
        #expect(changes.changes[y]?.kind == .removed)
        let y2 = try #require(id(index, "Documents/y2"))
        #expect(changes.changes[y2]?.kind == .inserted)
        #expect(id(index, "Documents/dir") == nil && id(index, "Documents/x") == nil && id(index, "Documents/y") == nil)
        #expect(index.candidates(for: NameHint([.exact("x")])).isEmpty)
    }

    @Test func movingOutOfDocumentsChangesScopeAndIntoADotDirectoryHidesIt() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/a", ".trash/"])
        _ = index.apply([.move(tree.container, from: ["Documents", "a"], to: ["a"], stat: nil)])
        #expect(value(index, "a", .scope) == .string("data"))
        _ = index.apply([.move(tree.container, from: ["a"], to: [".trash", "a"], stat: nil)])
        #expect(value(index, ".trash/a", .isHidden) == .bool(true))
    }

    @Test func removingASubtreeRemovesEveryItemOnceAndFreesIds() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/d/e/f/1", "Documents/d/e/2", "Documents/keep"])
        let before = index.itemCount
        let changes = index.apply([.remove(tree.container, ["Documents", "d"])])
        #expect(changes.count == 5)
        #expect(changes.changes.values.allSatisfy { $0.kind == .removed && $0.before != nil })
        #expect(index.itemCount == before - 5)
        #expect(contents(index) == ["Documents directory 4096", "Documents/keep regular \("Documents/keep".count)"])
    }

    @Test func aListingRemovesWhatItDoesNotListAndReportsOnlyRealDifferences() {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/a", "Documents/b"])
        let a = index.lookup(container: 0, ["Documents", "a"])!
        let sameA = index.entry(a).stat
        let documents = index.entry(index.lookup(container: 0, ["Documents"])!).stat
        let root = index.entry(index.rootID(ofContainer: 0)!).stat
        let listing = CrawlListing(root: root, entries: [
            CrawlListing.Entry(parent: -1, name: "Documents", stat: documents),
            CrawlListing.Entry(parent: 0, name: "a", stat: sameA),
            CrawlListing.Entry(parent: 0, name: "c", stat: tree.file(3)),
        ])
        let changes = index.apply([.listing(tree.container, [], listing)])
        #expect(changes.count == 2)
        #expect(changes.changes.values.map(\.kind).sorted { "\($0)" < "\($1)" } == [.inserted, .removed])
    }

    @Test func aContainerThatDisappearsRemovesEverything() {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/a", "x/y"])
        let changes = index.apply([.listing(tree.container, [], CrawlListing(root: nil))])
        #expect(changes.count == 4)
        #expect(index.itemCount == 0)
        #expect(index.rootID(ofContainer: 0) == nil)
    }

    @Test func aMoveThatChangesKindIsARemoveAndACreate() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/a"])
        let changes = index.apply([.move(tree.container, from: ["Documents", "a"], to: ["Documents", "b"], stat: tree.directory()),
                                   .stat(tree.container, ["Documents", "b", "inside"], tree.file())])
        #expect(value(index, "Documents/b", .isDirectory) == .bool(true))
        #expect(value(index, "Documents/b/inside", .isDirectory) == .bool(false))
        #expect(changes.changes.values.filter { $0.kind == .removed }.count == 1)
    }

    @Test func aReusedSlotGetsANewIdentity() throws {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["a"])
        let first = index.identity(try #require(id(index, "a")))
        _ = index.apply([.remove(tree.container, ["a"])])
        _ = index.apply([.stat(tree.container, ["b"], tree.file())])
        let second = index.identity(try #require(id(index, "b")))
        #expect(first.id == second.id)
        #expect(first != second)
    }

    @Test func changesUnderAnUnknownParentAreIgnoredUntilARescan() {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["a"])
        let changes = index.apply([.stat(tree.container, ["missing", "x"], tree.file())])
        #expect(changes.isEmpty)
    }

    @Test func nameHintsFindCandidatesWithoutAScan() {
        var tree = TreeBuilder()
        let (index, _) = makeIndex(&tree, ["Documents/Item_1", "Documents/item_2", "Documents/Other", "Documents/It"])
        func names(_ hint: NameHint) -> Set<String> {
            Set(index.candidates(for: hint).map { index.entry($0).name })
        }
        #expect(names(NameHint([.prefix("Item_")])) == ["Item_1"])
        #expect(names(NameHint([.prefix("Item_")], caseInsensitive: true)) == ["Item_1", "item_2"])
        #expect(names(NameHint([.prefix("I")])) == ["Item_1", "It"])
        #expect(names(NameHint([.exact("Other"), .exact("It")])) == ["Other", "It"])
        #expect(names(NameHint([.exact("other")], caseInsensitive: true)) == ["Other"])
    }
}
