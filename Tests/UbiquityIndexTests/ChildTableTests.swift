import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// A directory's children (``ChildTable``): found by the bytes of their names, as the kernel
/// finds them, through every operation of the index that adds, renames or removes entries.
@Suite("Child table")
struct ChildTableTests {
    /// `é` precomposed (U+00E9) and decomposed (`e` + U+0301): one name to Swift's `==`, two
    /// files on Linux.
    static let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"

    func makeIndex(_ tree: inout TreeBuilder, _ paths: [String]) -> MetadataIndex {
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([tree.listing(paths)])
        return index
    }

    /// `Documents/` with the two spellings in it, listed by hand (``TreeBuilder/listing(_:)`` keys
    /// its paths by `String`, which would merge them).
    static func bothSpellings(_ tree: inout TreeBuilder) -> FileSystemChange {
        let documents = tree.directory(), a = tree.file(1), b = tree.file(2)
        return .listing(tree.container, [], CrawlListing(root: tree.directory(), entries: [
            CrawlListing.Entry(parent: -1, name: "Documents", stat: documents),
            CrawlListing.Entry(parent: 0, name: composed, stat: a),
            CrawlListing.Entry(parent: 0, name: decomposed, stat: b),
        ]))
    }

    @Test func namesThatDifferOnlyInNormalizationAreTwoEntries() throws {
        #expect(Self.composed == Self.decomposed, "Swift compares them as equal: the point of this test")
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([Self.bothSpellings(&tree)])
        let a = try #require(index.lookup(container: 0, ["Documents", Self.composed]))
        let b = try #require(index.lookup(container: 0, ["Documents", Self.decomposed]))
        #expect(a != b)
        #expect(Array(index.name(a).utf8) == Array(Self.composed.utf8))
        #expect(Array(index.name(b).utf8) == Array(Self.decomposed.utf8))
        #expect(index.itemCount == 3)
        // A query compares names as strings (canonical equivalence), as its predicate does: the
        // name index answers both spellings for either.
        #expect(Set(index.candidates(for: NameHint([.exact(Self.decomposed)]))) == [a, b])
        #expect(Set(index.candidates(for: NameHint([.prefix("caf")]))) == [a, b])

        // Updating one leaves the other alone; removing one keeps the other.
        index.apply([.stat(tree.container, ["Documents", Self.decomposed], tree.file(42))])
        #expect(index.fileStat(of: b).size == 42)
        #expect(index.fileStat(of: a).size != 42)
        index.apply([.remove(tree.container, ["Documents", Self.composed])])
        #expect(index.lookup(container: 0, ["Documents", Self.composed]) == nil)
        #expect(index.lookup(container: 0, ["Documents", Self.decomposed]) == b)

        // A crawl listing both keeps both (and does not take one for the other).
        index.apply([Self.bothSpellings(&tree)])
        #expect(index.lookup(container: 0, ["Documents", Self.decomposed]) == b)
        #expect(index.lookup(container: 0, ["Documents", Self.composed]) != nil)
        #expect(index.itemCount == 3)
    }

    @Test func aSavedIndexWithNamesThatDifferOnlyInNormalizationIsRestored() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        index.apply([Self.bothSpellings(&tree)])
        let bytes = IndexSnapshot.encode(IndexSnapshot.View(index, history: ChangeHistory(epoch: 1)), snapshotID: 1, savedAt: 0,
                                         bootID: "b", final: true, continues: nil)
        let restored = try RestoredIndex.restore(snapshot: bytes, journal: nil, containers: [tree.descriptor],
                                                 retention: .init(), now: 0, bootID: "b")
        #expect(restored.index.itemCount == 3)
        #expect(restored.index.lookup(container: 0, ["Documents", Self.composed]) != nil)
        #expect(restored.index.lookup(container: 0, ["Documents", Self.decomposed]) != nil)
    }

    /// One hash and probe that adds a child unless one has its bytes: the other spelling of
    /// `é` is another child, the same bytes are refused and change nothing.
    @Test func insertUnlessNamedRefusesOnlyTheSameBytes() {
        let names = NameColumn([Self.composed, Self.decomposed, Self.composed, "file_00000001.txt", "file_00000001.txt"])
        var table = ChildTable()
        let added = (0..<5).map { table.insertUnlessNamed(ItemID($0), names: names) }
        #expect(added == [true, true, false, true, false])
        #expect(table.count == 3)
        #expect(Set(table.ids) == [0, 1, 3])
        #expect(table.find(Self.decomposed, names: names) == 1)
    }

    /// Room made ahead (a crawl's count of a directory's children) takes them all without a
    /// resize; making room for fewer than it has changes nothing.
    @Test func reservedRoomTakesTheChildrenWithoutGrowing() {
        let names = NameColumn((0..<300).map { "file_\($0).txt" })
        var table = ChildTable()
        names.withReader { table.reserve(300, names: $0) }
        let slots = table.slotCount
        #expect(slots * 7 >= 300 * 8)
        for i in 0..<300 { table.insert(ItemID(i), names: names) }
        #expect(table.slotCount == slots)
        for i in 0..<300 { #expect(table.find(names[i], names: names) == ItemID(i)) }
        names.withReader { table.reserve(1, names: $0) }
        #expect(table.slotCount == slots && table.count == 300)
    }

    @Test func longAndOddNamesAreFoundByTheirBytes() throws {
        let long = String(repeating: "n", count: 250) + ".txt"     // 254 bytes
        let longest = String(repeating: "\u{E9}", count: 127) + "x" // 255 bytes, 2-byte scalars
        #expect(long.utf8.count == 254 && longest.utf8.count == 255)
        let odd = [long, longest, "a", " ", "\u{1F600}", "tab\there", "new\nline", "x\u{200B}y", "xy"]
        var tree = TreeBuilder()
        let index = makeIndex(&tree, odd.map { "Documents/" + $0 })
        for name in odd {
            let id = try #require(index.lookup(container: 0, ["Documents", name]), "\(name.debugDescription)")
            #expect(index.name(id) == name)
        }
        #expect(index.lookup(container: 0, ["Documents", "x"]) == nil)
        #expect(index.lookup(container: 0, ["Documents", String(long.dropLast())]) == nil)
    }

    /// Random inserts, renames and removals in a few directories, checked after every step
    /// against a byte-keyed model: exercises growth, shrinking and the backward-shift deletion.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomChangesAgreeWithAModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var tree = TreeBuilder()
        let index = makeIndex(&tree, ["d0/", "d1/", "d2/"])
        var model: [[UInt8]: Int] = [:]     // (directory, name bytes) → 1, directories d0...d2
        func key(_ directory: Int, _ name: String) -> [UInt8] { [UInt8(directory)] + Array(name.utf8) }
        func name(_ n: UInt64) -> String {
            // Short and long names, and the two spellings of one accented name.
            switch n % 4 {
            case 0: "f\(n % 300)"
            case 1: "Item_\(n % 300)_" + String(repeating: "x", count: Int(n % 40))
            case 2: "caf\u{E9}\(n % 50)"
            default: "cafe\u{301}\(n % 50)"
            }
        }
        for _ in 0..<3000 {
            let directory = Int(random.next() % 3), n = random.next()
            let path = ["d\(directory)", name(n)]
            switch random.next() % 5 {
            case 0, 1, 2:
                index.apply([.stat(tree.container, path, tree.file())])
                model[key(directory, path[1])] = 1
            case 3:
                index.apply([.remove(tree.container, path)])
                model[key(directory, path[1])] = nil
            default:
                let target = Int(random.next() % 3), newName = name(random.next())
                let source = index.lookup(container: 0, path)
                index.apply([.move(tree.container, from: path, to: ["d\(target)", newName], stat: nil)])
                if source != nil {
                    model[key(directory, path[1])] = nil
                    model[key(target, newName)] = 1
                }
            }
        }
        var seen: [[UInt8]: Int] = [:]
        for directory in 0..<3 {
            let id = try #require(index.lookup(container: 0, ["d\(directory)"]))
            let children = try #require(index.childEntries(of: id))
            for (name, child) in children {
                seen[key(directory, name)] = 1
                #expect(index.lookup(container: 0, ["d\(directory)", name]) == child)
            }
        }
        #expect(seen == model)
        #expect(index.itemCount == model.count + 3)
    }
}
