import Testing
import UbiquityBinary
@testable import UbiquityIndex
import UbiquityPredicate

/// An evicted item's placeholder (`.NAME.ubiquity-evicted`) in the index: filed under the item's
/// name as the same item, `notDownloaded`, never an item of its own; the item's file wins.
@Suite("Evicted placeholders in the index")
struct EvictedPlaceholderTests {
    @Test("Names: a placeholder's item, and other names left alone")
    func names() {
        #expect(EvictedPlaceholderName.placeholder(for: "Item_1") == ".Item_1.ubiquity-evicted")
        #expect(EvictedPlaceholderName.item(ofPlaceholder: ".Item_1.ubiquity-evicted") == "Item_1")
        #expect(EvictedPlaceholderName.item(ofPlaceholder: ".x.ubiquity-evicted") == "x")
        #expect(EvictedPlaceholderName.item(ofPlaceholder: "..ubiquity-evicted") == nil)
        #expect(EvictedPlaceholderName.item(ofPlaceholder: "...ubiquity-evicted") == nil)
        #expect(EvictedPlaceholderName.item(ofPlaceholder: "Item_1.ubiquity-evicted") == nil)
        #expect(EvictedPlaceholderName.item(ofPlaceholder: ".Item_1") == nil)
        #expect(EvictedPlaceholderName.placeholder(for: String(repeating: "a", count: 238)) == nil)
    }

    @Test("Evict (rename to the placeholder) is one update of the same item; the download's rename over the name is another; the placeholder's removal then changes nothing")
    func evictAndDownload() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/Item_1"])])
        let item = try #require(index.lookup(container: 0, ["Documents", "Item_1"]))
        var before = index.stat(item)
        before.inode = 7

        index.apply([.stat(tree.container, tree.components("Documents/Item_1"), before)])
        let evicted = index.apply([.move(tree.container, from: tree.components("Documents/Item_1"),
                                         to: tree.components("Documents/.Item_1.ubiquity-evicted"), stat: before)])
        #expect(evicted.changes.count == 1 && evicted.changes[item]?.kind == .updated, "\(evicted.changes)")
        #expect(index.lookup(container: 0, ["Documents", "Item_1"]) == item)
        #expect(index.lookup(container: 0, ["Documents", ".Item_1.ubiquity-evicted"]) == nil)
        let facts = IndexedItem(index, item)
        #expect(facts.value(of: .downloadingStatus) == .string("notDownloaded"))
        #expect(facts.value(of: .isDownloaded) == .bool(false))
        #expect(facts.value(of: .size) == .integer(before.size))
        #expect(facts.value(of: .isHidden) == .bool(false))

        // A stale removal of the item's own name leaves the placeholder standing for it.
        #expect(index.apply([.remove(tree.container, tree.components("Documents/Item_1"))]).changes.isEmpty)
        #expect(index.lookup(container: 0, ["Documents", "Item_1"]) == item)

        // The download: Syncthing's temporary file renamed over the name.
        var fetched = tree.file(before.size)
        fetched.inode = 8
        let back = index.apply([
            .stat(tree.container, tree.components("Documents/.syncthing.Item_1.tmp"), fetched),
            .move(tree.container, from: tree.components("Documents/.syncthing.Item_1.tmp"), to: tree.components("Documents/Item_1"), stat: fetched),
        ])
        #expect(back.changes[item]?.kind == .updated)
        #expect(IndexedItem(index, item).value(of: .downloadingStatus) == .string("current"))
        // The placeholder, seen late beside the file, then removed: nothing changes.
        #expect(index.apply([.stat(tree.container, tree.components("Documents/.Item_1.ubiquity-evicted"), before)]).changes.isEmpty)
        #expect(index.apply([.remove(tree.container, tree.components("Documents/.Item_1.ubiquity-evicted"))]).changes.isEmpty)
        #expect(index.lookup(container: 0, ["Documents", "Item_1"]) == item)
        #expect(!index.stat(item).evicted)
    }

    @Test("A crawl that finds only the placeholder keeps the item, evicted; a placeholder's removal removes it")
    func crawlAndRemoval() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/.Item_2.ubiquity-evicted", "Documents/Item_3"])])
        let item = try #require(index.lookup(container: 0, ["Documents", "Item_2"]))
        #expect(index.stat(item).evicted)
        #expect(contents(index).contains { $0.hasPrefix("Documents/.Item_2") } == false)
        // A rescan that lists it again changes nothing.
        let again = index.apply([tree.listing(["Documents/.Item_2.ubiquity-evicted", "Documents/Item_3"])])
        #expect(index.lookup(container: 0, ["Documents", "Item_2"]) != nil, "\(again.changes)")
        let removed = index.apply([.remove(tree.container, tree.components("Documents/.Item_2.ubiquity-evicted"))])
        #expect(removed.changes[item]?.kind == .removed)
        #expect(index.lookup(container: 0, ["Documents", "Item_2"]) == nil)
    }

    @Test("The saved index keeps an entry evicted (a bit of the kind's byte), and reads old entries as not evicted")
    func savedIndexKeepsEviction() throws {
        var stat = FileStat(kind: .regular, size: 39, modified: 5_000, created: 4_000, changed: 6_000, inode: 9)
        stat.evicted = true
        var writer = ByteWriter()
        writer.fileStat(stat)
        var reader = BinaryReader(writer.bytes)
        #expect(try reader.fileStat() == stat)
        stat.evicted = false
        var plain = ByteWriter()
        plain.fileStat(stat)
        #expect(plain.bytes.first == FileStat.Kind.regular.rawValue)
        var again = BinaryReader(plain.bytes)
        #expect(try again.fileStat().evicted == false)
    }

    @Test("A directory with a placeholder's name is a directory of its own name, moved and removed as one")
    func directoryWithAPlaceholdersName() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(["Documents/.odd.ubiquity-evicted/", "Documents/odd"])])
        let directory = try #require(index.lookup(container: 0, ["Documents", ".odd.ubiquity-evicted"]))
        let odd = try #require(index.lookup(container: 0, ["Documents", "odd"]))
        #expect(!index.stat(odd).evicted)
        index.apply([.move(tree.container, from: tree.components("Documents/.odd.ubiquity-evicted"),
                           to: tree.components("Documents/elsewhere"), stat: tree.directory())])
        #expect(index.lookup(container: 0, ["Documents", "elsewhere"]) == directory)
        index.apply([.move(tree.container, from: tree.components("Documents/elsewhere"),
                           to: tree.components("Documents/.odd.ubiquity-evicted"), stat: tree.directory())])
        #expect(index.lookup(container: 0, ["Documents", ".odd.ubiquity-evicted"]) == directory)
        index.apply([.remove(tree.container, tree.components("Documents/.odd.ubiquity-evicted"))])
        #expect(index.lookup(container: 0, ["Documents", ".odd.ubiquity-evicted"]) == nil)
        #expect(index.lookup(container: 0, ["Documents", "odd"]) == odd)
    }
}
