import Foundation
import Glibc
@testable import GroceryStore
import Synchronization
import Testing
import UbiquityKit
import UbiquityTesting

/// File mode storage on a real temporary directory, without a daemon (a rename needs one:
/// GroceryItemFilesSavingTests).
@Suite struct GroceryItemFilesTests {
    let documents: String
    let files: GroceryItemFiles

    init() throws {
        var template = Array("/tmp/grocery-files-XXXXXX".utf8CString)
        documents = String(cString: try #require(mkdtemp(&template)))
        files = GroceryItemFiles(documents: documents)
    }

    @Test func namesRoundTripByteForByte() async throws {
        defer { try? FileManager.default.removeItem(atPath: documents) }
        for name in ["milk", "line one\nline two", "👩‍👩‍👧 family pack", "חלב", "مرحبا", "", String(repeating: "€", count: 1365)] {
            let id = try await files.add(name: name)
            #expect(try Data(contentsOf: URL(fileURLWithPath: files.path(of: id))) == Data(name.utf8))
            let read = try #require(try files.readName(at: files.path(of: id)))
            #expect(read.name == name)
            #expect(read.truncated == false)
        }
    }

    @Test func tooLongNamesAreRefusedBeforeWriting() async throws {
        defer { try? FileManager.default.removeItem(atPath: documents) }
        let name = String(repeating: "a", count: 1 << 20)
        await #expect(throws: GroceryError.nameTooLong(bytes: 1 << 20, limit: GroceryLimits.maxNameBytes)) {
            try await files.add(name: name)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: documents).isEmpty)
    }

    @Test func readingIsBoundedAndSkipsWhatIsNotAnItemFile() throws {
        defer { try? FileManager.default.removeItem(atPath: documents) }
        // 4095 ASCII bytes then a 3-byte character: the limit falls inside it, so it is dropped whole.
        let long = documents + "/long"
        try Data((String(repeating: "a", count: 4095) + "€€€").utf8).write(to: URL(fileURLWithPath: long))
        let read = try #require(try files.readName(at: long))
        #expect(read.truncated)
        #expect(read.name == String(repeating: "a", count: 4095))
        // A character that ends exactly at the limit is kept.
        try Data((String(repeating: "a", count: 4093) + "€€").utf8).write(to: URL(fileURLWithPath: long))
        #expect(try files.readName(at: long)?.name == String(repeating: "a", count: 4093) + "€")

        #expect(try files.readName(at: documents + "/missing") == nil)
        try FileManager.default.createDirectory(atPath: documents + "/directory", withIntermediateDirectories: false)
        #expect(try files.readName(at: documents + "/directory") == nil)
        #expect(symlink(long, documents + "/link") == 0)
        #expect(try files.readName(at: documents + "/link") == nil)
        #expect(mkfifo(documents + "/fifo", 0o600) == 0)
        #expect(try files.readName(at: documents + "/fifo") == nil, "a FIFO must not block the reader")
    }

    @Test func itemsForResultsReadRelativeToDocumentsAsEachReadOnItsOwn() async throws {
        defer { try? FileManager.default.removeItem(atPath: documents) }
        var template = Array("/tmp/grocery-elsewhere-XXXXXX".utf8CString)
        let elsewhere = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        // Enough items for the threaded read, and every kind of result that is not a plain item file.
        var paths: [String] = []
        for i in 0..<600 { paths.append(files.path(of: try await files.add(name: "item \(i) é"))) }
        try FileManager.default.createDirectory(atPath: documents + "/sub", withIntermediateDirectories: false)
        let nested = documents + "/sub/" + GroceryItemID().fileName, outside = elsewhere + "/" + GroceryItemID().fileName
        try Data("nested".utf8).write(to: URL(fileURLWithPath: nested))
        try Data("outside".utf8).write(to: URL(fileURLWithPath: outside))
        let link = documents + "/" + GroceryItemID().fileName, directory = documents + "/" + GroceryItemID().fileName
        #expect(symlink(paths[0], link) == 0)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        paths += [nested, outside, link, directory, documents + "/" + GroceryItemID().fileName, documents + "/Item_milk",
                  documents + "x/" + GroceryItemID().fileName]
        // The name as an attribute on half of them, from the path's last component on the others.
        let results = paths.enumerated().map { index, path in
            MetadataItem(path: path, attributes: [
                "kMDItemFSContentChangeDate": .string("2026-11-22T10:00:0\(index % 10).123456Z"),
                "hasUnresolvedConflicts": .bool(index % 7 == 0),
            ].merging(index % 2 == 0 ? ["kMDItemFSName": .string(String(path.split(separator: "/").last!))] : [:]) { a, _ in a })
        }
        let together = try files.items(for: results)
        #expect(together == (try results.compactMap { try files.item(for: $0) }))
        #expect(together.count == 602)
        #expect(together.map(\.name).suffix(2) == ["nested", "outside"])
    }
}

@Suite struct GroceryChangeTests {
    let a = GroceryItemID(uuidString: "3F2A9C1E-0000-4000-8000-000000000001")!
    let b = GroceryItemID(uuidString: "3F2A9C1E-0000-4000-8000-000000000002")!
    let c = GroceryItemID(uuidString: "7B00D1E5-0000-4000-8000-000000000003")!
    let at = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func changesAreComparedByIDAndOrderedByKindThenName() {
        let old = [GroceryItemID: GroceryItem](items: [
            GroceryItem(id: a, name: "milk"), GroceryItem(id: b, name: "eggs", image: .png),
        ])
        let new = [GroceryItemID: GroceryItem](items: [
            GroceryItem(id: a, name: "oat milk"), GroceryItem(id: c, name: "bread", image: .jpeg),
        ])
        #expect(GroceryChange.between(old, new, at: at) == [
            GroceryChange(kind: .added, id: c, name: "bread", at: at),
            GroceryChange(kind: .renamed, id: a, name: "oat milk", oldName: "milk", at: at),
            GroceryChange(kind: .imageSet, id: c, name: "bread", image: .jpeg, at: at),
            GroceryChange(kind: .removed, id: b, name: "eggs", at: at),
        ])
        #expect(GroceryChange.between(new, new, at: at).isEmpty)
    }

    @Test func imagesSetReplacedAndRemoved() {
        let t0 = Date(timeIntervalSince1970: 1), t1 = Date(timeIntervalSince1970: 2)
        let plain = [GroceryItemID: GroceryItem](items: [GroceryItem(id: a, name: "milk", modified: t0)])
        let png = [GroceryItemID: GroceryItem](items: [GroceryItem(id: a, name: "milk", modified: t1, image: .png)])
        let replaced = [GroceryItemID: GroceryItem](items: [GroceryItem(id: a, name: "milk", modified: t0.addingTimeInterval(5), image: .png)])
        #expect(GroceryChange.between(plain, png, at: at) == [GroceryChange(kind: .imageSet, id: a, name: "milk", image: .png, at: at)])
        #expect(GroceryChange.between(png, replaced, at: at) == [GroceryChange(kind: .imageSet, id: a, name: "milk", image: .png, at: at)])
        #expect(GroceryChange.between(png, plain, at: at) == [GroceryChange(kind: .imageRemoved, id: a, name: "milk", at: at)])
    }
}

@Suite struct ReconnectBackoffTests {
    @Test func doublesFrom100msUpTo2sAndResets() {
        var backoff = ReconnectBackoff()
        let waits = (0..<7).map { _ in backoff.next() }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                          .milliseconds(1600), .seconds(2), .seconds(2)])
        backoff.reset()
        #expect(backoff.next() == .milliseconds(100))
    }
}

@Suite struct GroceryItemOrderTests {
    @Test func byNameIgnoresCaseAndShowsUnnamedAsItsDisplayName() {
        let items = ["milk", "Bread", "", "apples"].map { GroceryItem(id: GroceryItemID(), name: $0) }
        #expect(GroceryItemOrder.name.sorted(items).map(\.displayName) == ["apples", "Bread", "milk", "Unnamed item"])
    }

    /// By name is the order of the lowercased display names' scalars in composed form (NFC, by
    /// Foundation's own normalization here), canonically equivalent spellings equal, then the ids.
    /// That is how `String`'s `<` is defined, and what it gives, except that it is inconsistent
    /// where a decomposed spelling is a prefix: `"e\u{301}clair" < "\u{E9}clair "` is false
    /// although `"e\u{301}clair" == "\u{E9}clair"` and `"\u{E9}clair" < "\u{E9}clair "` (Swift 6.3).
    @Test func byNameIsTheOrderOfTheComposedLowercasedNamesThenTheIDs() {
        let pieces = ["milk", "Milk", "MILK", "e\u{301}clair", "\u{E9}clair", "\u{C9}CLAIR", "Käse", "Ka\u{308}se", "🍎 pommes",
                      "straße", "STRASSE", "İstanbul", "ǅemal", "Ωmega", "ωmega", "tea", "", " ", "a\u{0}b", "ﬁsh", "zz", "Z"]
        var random = SplitMix64(seed: 20_261_130)
        var items: [GroceryItem] = []
        for _ in 0..<600 {
            let name = (0..<random.int(1...3)).map { _ in random.pick(pieces) }.joined(separator: random.pick(["", " ", "-"]))
            items.append(GroceryItem(id: GroceryItemID(), name: name))
        }
        func composed(_ item: GroceryItem) -> [UInt32] {
            item.displayName.lowercased().precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        }
        let reference = items.sorted {
            let (a, b) = (composed($0), composed($1))
            return a != b ? a.lexicographicallyPrecedes(b) : $0.id.uuidString < $1.id.uuidString
        }
        let sorted = GroceryItemOrder.name.sorted(items)
        for (got, expected) in zip(sorted, reference) where got.id != expected.id {
            Issue.record("\(got.displayName.unicodeScalars.map(\.value)) where \(expected.displayName.unicodeScalars.map(\.value)) belongs")
            break
        }
        #expect(sorted.count == items.count)
        #expect(Set(items.map(composed)).count < 400, "names repeat, so ids break ties")
    }

    /// `sort(_:)` moves the items along each cycle of the sorted order: every permutation, from
    /// none to one long cycle, gives what indexing by the order gives, and moves each item exactly
    /// once (objects that count themselves: none lost, none released twice, none left behind).
    @Test func aPermutationIsAppliedCycleByCycle() {
        final class Counted {
            static let alive = Atomic(0)
            let value: Int
            init(_ value: Int) { self.value = value; Counted.alive.add(1, ordering: .relaxed) }
            deinit { Counted.alive.subtract(1, ordering: .relaxed) }
        }
        var random = SplitMix64(seed: 20_261_130)
        for count in [0, 1, 2, 3, 10, 257] {
            var orders: [[Int]] = [Array(0..<count), Array((0..<count).reversed())]
            if count > 1 { orders.append(Array(1..<count) + [0]) }      // one cycle through every position
            for _ in 0..<20 {
                var order = Array(0..<count)
                for i in order.indices.reversed() where i > 0 { order.swapAt(i, random.int(0...i)) }
                orders.append(order)
            }
            for order in orders {
                do {
                    var permuted = (0..<count).map(Counted.init)
                    GroceryItemOrder.permute(&permuted, into: order)
                    #expect(permuted.map(\.value) == order, "\(order)")
                    #expect(Counted.alive.load(ordering: .relaxed) == count)
                    for index in permuted.indices { #expect(isKnownUniquelyReferenced(&permuted[index])) }
                }
                #expect(Counted.alive.load(ordering: .relaxed) == 0, "every item freed once the array goes")
            }
        }
    }

    /// Oldest first, undated last, the id between equal dates: against a plain sort of the items.
    @Test func byCreatedIsTheOrderOfTheDatesThenTheIDs() {
        var random = SplitMix64(seed: 20_261_130)
        let items = (0..<500).map { index in
            let created = random.int(0...4) == 0 ? nil : Date(timeIntervalSince1970: Double(random.int(0...40)))
            return GroceryItem(id: GroceryItemID(), name: "item \(index)", created: created)
        }
        let reference = items.sorted { a, b in
            let (x, y) = (a.created?.timeIntervalSince1970 ?? .infinity, b.created?.timeIntervalSince1970 ?? .infinity)
            return x != y ? x < y : a.id.uuidString < b.id.uuidString
        }
        var sorted = items
        GroceryItemOrder.created.sort(&sorted)
        #expect(sorted.map(\.id) == reference.map(\.id))
        #expect(GroceryItemOrder.created.sorted(items).map(\.id) == reference.map(\.id))
    }

    @Test func byCreatedOldestFirstUndatedLast() {
        let early = GroceryItem(id: GroceryItemID(), name: "b", created: Date(timeIntervalSince1970: 1))
        let late = GroceryItem(id: GroceryItemID(), name: "a", created: Date(timeIntervalSince1970: 2))
        let undated = GroceryItem(id: GroceryItemID(), name: "c")
        #expect(GroceryItemOrder.created.sorted([undated, late, early]).map(\.name) == ["b", "a", "c"])
    }
}
