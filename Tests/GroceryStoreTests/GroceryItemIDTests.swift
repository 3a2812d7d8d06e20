import Foundation
import GroceryStore
import Testing
import UbiquityTesting

@Suite struct GroceryItemIDTests {
    let a = GroceryItemID(uuidString: "3F2A9C1E-0000-4000-8000-000000000001")!
    let b = GroceryItemID(uuidString: "3F2A9C1E-0000-4000-8000-000000000002")!
    let c = GroceryItemID(uuidString: "7B00D1E5-0000-4000-8000-000000000003")!

    @Test func fileNamesRoundTripAndOnlyCanonicalNamesAreItems() {
        #expect(GroceryItemID(fileName: a.fileName) == a)
        #expect(GroceryItemID(fileName: "Item_3f2a9c1e-0000-4000-8000-000000000001") == nil)
        #expect(GroceryItemID(fileName: "Item_milk") == nil)
        #expect(GroceryItemID(fileName: "notes.txt") == nil)
        let fresh = GroceryItemID()
        #expect(fresh.uuidString == fresh.uuidString.uppercased())
    }

    @Test func onlyCanonicalUppercaseUUIDNamesAreItemsAsFoundationWouldParseThem() {
        // The definition the byte check replaced: Foundation parses it, and its uppercase form is the name.
        func reference(_ name: String) -> String? {
            guard name.hasPrefix("Item_") else { return nil }
            let tail = String(name.dropFirst(5))
            guard let uuid = UUID(uuidString: tail), uuid.uuidString.uppercased() == tail else { return nil }
            return tail
        }
        let canonical = "Item_3F2A9C1E-0000-4000-8000-00000000000A"
        var names = [canonical, "Item_3F2A9C1E-0000-4000-8000-00000000000a", "Item_3F2A9C1E00004000800000000000000A",
                     "Item_{3F2A9C1E-0000-4000-8000-00000000000A}", "Item_3F2A9C1E-0000-4000-8000-00000000000", "Item_",
                     "Item_3F2A9C1E-0000-4000-8000-00000000000AB", "item_3F2A9C1E-0000-4000-8000-00000000000A",
                     "Item_3F2A9C1E-0000-4000-8000-00000000000Ａ", "Item_3F2A9C1E-0000-4000-8000-0000000000é",
                     "Item_3F2A9C1E-0000-4000-8000_00000000000A", " Item_3F2A9C1E-0000-4000-8000-00000000000A",
                     "Item_3F2A9C1E-0000-4000-8000-00000000000A ", "Item_3F2A9C1E-0000-4000-8000-00000000000G"]
        var random = SplitMix64(seed: 20_261_123)
        let alphabet = Array("0123456789ABCDEFabcdefG-_ é")
        for _ in 0..<500 {
            var characters = Array(canonical)
            for _ in 0..<random.int(1...2) {
                let at = random.int(5...(characters.count - 1))
                switch random.int(0...2) {
                case 0: characters[at] = random.pick(alphabet)
                case 1: characters.remove(at: at)
                default: characters.insert(random.pick(alphabet), at: at)
                }
            }
            names.append(String(characters))
        }
        for name in names {
            #expect(GroceryItemID(fileName: name)?.uuidString == reference(name), "\(name)")
            #expect(GroceryItemID(fileName: name[...])?.uuidString == reference(name), "\(name)")
        }
    }

    @Test func shortIDsAreTheShortestUnambiguousPrefixes() throws {
        let short = GroceryItemID.shortIDs(for: [c, b, a])
        #expect(short[c] == "7B00")
        #expect(short[a] == "3F2A9C1E-0000-4000-8000-000000000001")
        #expect(short[b] == "3F2A9C1E-0000-4000-8000-000000000002")
        for (id, prefix) in short { #expect(try GroceryItemID.resolve(prefix, among: [a, b, c]) == id) }
    }

    /// Ids compare, hash and abbreviate by their bits: the same as by their strings, the
    /// definitions they replaced. Ids drawn near each other share long prefixes.
    @Test func idsOrderAndAbbreviateAsTheirStringsDo() throws {
        var random = SplitMix64(seed: 20_261_130)
        let hex = Array("0123456789ABCDEF")
        var strings: [String] = []
        for _ in 0..<400 {
            var characters = Array(strings.isEmpty || random.int(0...3) == 0 ? GroceryItemID().uuidString : random.pick(strings))
            let at = random.int(0...35)
            if characters[at] != "-" { characters[at] = random.pick(hex) }
            strings.append(String(characters))
        }
        let ids = strings.map { GroceryItemID(uuidString: $0)! }
        #expect(ids.sorted().map(\.uuidString) == strings.sorted())
        #expect(Set(ids).count == Set(strings).count)
        for (x, y) in zip(ids, ids.shuffled(using: &random)) {
            #expect((x == y) == (x.uuidString == y.uuidString))
            #expect((x < y) == (x.uuidString < y.uuidString))
            #expect(GroceryItemID(fileName: x.fileName) == x)
        }
        let unique = Array(Set(strings))
        let short = GroceryItemID.shortIDs(for: unique.map { GroceryItemID(uuidString: $0)! })
        func common(_ a: String, _ b: String) -> Int { zip(a, b).prefix { $0 == $1 }.count }
        for string in unique {
            let needed = unique.filter { $0 != string }.map { common($0, string) + 1 }.max() ?? 0
            #expect(short[GroceryItemID(uuidString: string)!] == String(string.prefix(max(needed, GroceryLimits.minimumShortIDLength))))
        }
    }

    @Test func resolveAcceptsAnyCaseAndTheFileName() throws {
        #expect(try GroceryItemID.resolve("7b", among: [a, b, c]) == c)
        #expect(try GroceryItemID.resolve(c.fileName, among: [a, b, c]) == c)
    }

    @Test func resolveNamesTheProblem() {
        #expect(throws: GroceryError.ambiguousItem(prefix: "3f2a", candidates: [a.uuidString, b.uuidString])) {
            try GroceryItemID.resolve("3f2a", among: [a, b, c])
        }
        #expect(throws: GroceryError.unknownItem(prefix: "DEAD")) { try GroceryItemID.resolve("DEAD", among: [a, b, c]) }
        #expect(throws: GroceryError.invalidItemID("milk")) { try GroceryItemID.resolve("milk", among: [a, b, c]) }
        #expect(throws: GroceryError.invalidItemID("")) { try GroceryItemID.resolve("", among: [a, b, c]) }
    }
}

@Suite struct GroceryNameTests {
    @Test func namesAreKeptByteForByteUpToTheLimit() throws {
        let name = "Milch 🥛\nחלב"
        #expect(try GroceryName.validated(name) == Array(name.utf8))
        let atLimit = String(repeating: "é", count: GroceryLimits.maxNameBytes / 2)
        #expect(try GroceryName.validated(atLimit).count == GroceryLimits.maxNameBytes)
        #expect(throws: GroceryError.nameTooLong(bytes: 1_000_000, limit: GroceryLimits.maxNameBytes)) {
            try GroceryName.validated(String(repeating: "x", count: 1_000_000))
        }
        #expect(GroceryName.display("") == "Unnamed item")
        #expect(GroceryName.display("Eggs") == "Eggs")
    }
}
