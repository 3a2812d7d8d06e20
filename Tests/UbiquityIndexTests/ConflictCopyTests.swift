import Testing
@testable import UbiquityIndex
import UbiquityPredicate

/// Conflict copies are versions of an item, never items: the item they belong to has
/// unresolved conflicts while any is present, and its subscribers hear when that changes.
@Suite("Conflict copies")
struct ConflictCopyTests {
    @Test func namesAreReadInEveryForm() {
        let syncthing = ConflictCopyName.parse("Item_2.sync-conflict-20261122-034428-NOFER4Z")
        #expect(syncthing == ConflictCopyName(original: "Item_2", device: "NOFER4Z", savedAt: "20261122-034428"))
        #expect(ConflictCopyName.parse("notes.sync-conflict-20261122-034428-ABCDEFG.txt")?.original == "notes.txt")
        #expect(ConflictCopyName.parse("grocery.sync-conflict-20261122-034428-ABCDEFG.gro")?.original == "grocery.gro")
        #expect(ConflictCopyName.parse("Notes (conflicted copy 2026-11-22).txt")?.original == "Notes.txt")
        #expect(ConflictCopyName.parse("Notes (Ann's conflicted copy).txt")?.original == "Notes.txt")
        #expect(ConflictCopyName.parse("Item.ubiquity-conflict-20261122-034428-my_laptop-2.txt")
                == ConflictCopyName(original: "Item.txt", device: "my_laptop-2", savedAt: "20261122-034428"))
        // Dropbox's "(Case Conflict)" names another file (its name differed only by case), no version.
        for name in ["Item_2", "Item (1).txt", "a.sync-conflict-2026-x", "sync-conflict-20261122-034428-ABCDEFG", ".stfolder",
                     "Notes (Case Conflict).txt", "Notes (Case Conflict 1).txt", "Notes (Case Conflict)"] {
            #expect(ConflictCopyName.parse(name) == nil, "\(name)")
        }
    }

    static func spec(_ text: String) throws -> QuerySpecification {
        QuerySpecification(predicate: try MetadataPredicate(parsing: text), attributes: [.name])
    }

    /// Syncthing's replace of an item in conflict, as the watcher reports it: the copy appears and
    /// the engine's temporary file (an entry the index holds) is renamed over the item.
    @Test func aCopyAndAReplaceInOneBatchAreOneChangeOfTheItem() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/Item_1", "Documents/.syncthing.Item_1.tmp"])])
        var spec = try Self.spec("name LIKE 'Item_*'")
        spec.attributes = [.size, .hasUnresolvedConflicts]
        let all = LiveQuery(spec, index: index, context: EvaluationContext())
        #expect(all.gather().count == 1)
        let copy = ["Documents", "Item_1.sync-conflict-20261122-034428-NOFER4Z"]
        let changes = index.apply([.stat(tree.container, copy, tree.file(5)),
                                   .move(tree.container, from: ["Documents", ".syncthing.Item_1.tmp"], to: ["Documents", "Item_1"], stat: tree.file(8))])
        let delta = all.apply(changes)
        #expect(delta.removed.isEmpty && delta.added.isEmpty, "\(delta)")
        #expect(delta.changed.map { $0.path.hasSuffix("/Item_1") } == [true], "\(delta)")
        #expect(all.results.count == 1)
    }

    /// The same replace read in two batches: the item moves to its conflict copy (it is gone
    /// for a moment), then the engine's temporary file becomes the item again. The query asks
    /// for its container by name, so the change must name the container too.
    @Test func aMoveToTheCopyThenAReplaceInTwoBatchesBringTheItemBack() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/Item_1"])])
        var spec = try Self.spec("name LIKE 'Item_*'")
        spec.attributes = [.size, .hasUnresolvedConflicts]
        spec.containers = [tree.container]
        let all = LiveQuery(spec, index: index, context: EvaluationContext())
        #expect(all.gather().count == 1)
        #expect(all.apply(index.apply([.stat(tree.container, ["Documents", ".syncthing.Item_1.tmp"], tree.file(8))], record: true)).isEmpty)
        let copy = ["Documents", "Item_1.sync-conflict-20261122-034428-NOFER4Z"]
        let first = all.apply(index.apply([.move(tree.container, from: ["Documents", "Item_1"], to: copy, stat: tree.file(5))], record: true))
        #expect(first.removed.count == 1, "\(first)")
        let second = all.apply(index.apply([.move(tree.container, from: ["Documents", ".syncthing.Item_1.tmp"], to: ["Documents", "Item_1"], stat: tree.file(8))], record: true))
        #expect(second.added.map { $0.path.hasSuffix("/Item_1") } == [true], "\(second)")
        #expect(all.results.count == 1)
    }

    @Test func aCopyIsHiddenAndMarksItsItemUntilItGoes() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/Item_1", "Documents/Item_2"])])
        let all = LiveQuery(try Self.spec("TRUEPREDICATE"), index: index, context: EvaluationContext())
        let conflicted = LiveQuery(try Self.spec("hasUnresolvedConflicts == YES"), index: index, context: EvaluationContext())
        _ = all.gather()
        #expect(conflicted.gather().isEmpty)

        let copy = ["Documents", "Item_1.sync-conflict-20261122-034428-NOFER4Z"]
        let arrived = index.apply([.stat(tree.container, copy, tree.file(5))])
        // The copy is no item; its item changed: every subscriber hears it, and it now matches.
        let allDelta = all.apply(arrived)
        #expect(allDelta.added.isEmpty && allDelta.changed.map { $0.path.hasSuffix("/Item_1") } == [true])
        #expect(conflicted.apply(arrived).added.map { $0.path.hasSuffix("/Item_1") } == [true])
        let item = try #require(index.lookup(container: 0, ["Documents", "Item_1"]))
        #expect(IndexedItem(index, item).hasUnresolvedConflicts)
        #expect(all.results.count == 3)                  // Documents, Item_1, Item_2: not the copy

        let resolved = index.apply([.remove(tree.container, copy)])
        #expect(conflicted.apply(resolved).removed.map { $0.path.hasSuffix("/Item_1") } == [true])
        #expect(!IndexedItem(index, item).hasUnresolvedConflicts)
        #expect(index.conflictCopies.isEmpty)
    }

    /// `café.txt` precomposed and decomposed are two files on Linux, side by side: a copy of
    /// one marks that one only, and the other's subscribers hear nothing.
    @Test func aCopyMarksOnlyTheItemNamedWithItsOriginalsBytes() throws {
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/" + composed, "Documents/" + decomposed])])
        let conflicted = LiveQuery(try Self.spec("hasUnresolvedConflicts == YES"), index: index, context: EvaluationContext())
        #expect(conflicted.gather().isEmpty)
        let copy = ["Documents", "caf\u{E9}.sync-conflict-20261122-034428-NOFER4Z.txt"]
        let delta = conflicted.apply(index.apply([.stat(tree.container, copy, tree.file(5))], record: true))
        func named(_ name: String) -> (String) -> Bool { { ExactName.sameBytes(String($0.split(separator: "/").last ?? ""), name) } }
        #expect(delta.added.map(\.path).map(named(composed)) == [true], "\(delta)")
        let one = try #require(index.lookup(container: 0, ["Documents", composed]))
        let other = try #require(index.lookup(container: 0, ["Documents", decomposed]))
        #expect(one != other)
        #expect(IndexedItem(index, one).hasUnresolvedConflicts)
        #expect(!IndexedItem(index, other).hasUnresolvedConflicts)
    }

    /// A "(Case Conflict)" file or directory is an item of its own: indexed with what it holds,
    /// reported by queries, and no conflict of the item whose name differs only by case.
    @Test func aCaseConflictFileOrDirectoryIsAnOrdinaryItem() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/Notes.txt", "Documents/Notes (Case Conflict).txt",
                                   "Documents/Folder/", "Documents/Folder (Case Conflict 1)/inside.txt"])])
        let names = LiveQuery(try Self.spec("TRUEPREDICATE"), index: index, context: EvaluationContext()).gather()
            .compactMap { $0.path.split(separator: "/").last.map(String.init) }
        #expect(Set(names) == ["Documents", "Notes.txt", "Notes (Case Conflict).txt", "Folder", "Folder (Case Conflict 1)", "inside.txt"],
                "\(names)")
        let notes = try #require(index.lookup(container: 0, ["Documents", "Notes.txt"]))
        let folder = try #require(index.lookup(container: 0, ["Documents", "Folder"]))
        #expect(!IndexedItem(index, notes).hasUnresolvedConflicts)
        #expect(!IndexedItem(index, folder).hasUnresolvedConflicts)
        #expect(index.conflictCopies.isEmpty)
    }

    @Test func aCopyOfOrInsideAPackageIsAConflictOfThePackage() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/list.gro/items.json", "Documents/other.gro/items.json"])])
        let list = try #require(index.lookup(container: 0, ["Documents", "list.gro"]))
        let other = try #require(index.lookup(container: 0, ["Documents", "other.gro"]))
        let sizeBefore = index.packageTotals(list).size
        index.apply([.stat(tree.container, ["Documents", "list.gro", "items.sync-conflict-20261122-034428-NOFER4Z.json"], tree.file(99))])
        #expect(IndexedItem(index, list).hasUnresolvedConflicts)
        #expect(index.packageTotals(list).size == sizeBefore, "a conflict copy counted in the package's size")
        index.apply([tree.listing(["Documents/list.gro/items.json", "Documents/other.gro/items.json",
                                   "Documents/other.sync-conflict-20261122-034428-NOFER4Z.gro/items.json"])])
        #expect(!IndexedItem(index, list).hasUnresolvedConflicts)    // the listing no longer has that copy
        #expect(IndexedItem(index, other).hasUnresolvedConflicts)
        let names = LiveQuery(try Self.spec("TRUEPREDICATE"), index: index, context: EvaluationContext()).gather().map(\.path)
        #expect(!names.contains { $0.contains("sync-conflict") })
    }
}
