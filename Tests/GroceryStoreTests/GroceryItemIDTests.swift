import Foundation
import GroceryStore
import Testing

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

    @Test func shortIDsAreTheShortestUnambiguousPrefixes() throws {
        let short = GroceryItemID.shortIDs(for: [c, b, a])
        #expect(short[c] == "7B00")
        #expect(short[a] == "3F2A9C1E-0000-4000-8000-000000000001")
        #expect(short[b] == "3F2A9C1E-0000-4000-8000-000000000002")
        for (id, prefix) in short { #expect(try GroceryItemID.resolve(prefix, among: [a, b, c]) == id) }
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
