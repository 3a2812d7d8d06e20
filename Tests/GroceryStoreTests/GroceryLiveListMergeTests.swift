import Foundation
@testable import GroceryStore
import Testing
import UbiquityKit

/// How the live list applies an update in file mode (pure: the file reads are passed in).
@Suite struct GroceryLiveListMergeTests {
    static let id = GroceryItemID(fileName: "Item_392A9C24-F68C-4C48-9F2B-DB13543D4722")!
    static let result = MetadataItem(path: "/c/Documents/Item_392A9C24-F68C-4C48-9F2B-DB13543D4722", attributes: [:])

    /// Syncthing putting the resolved version in place: the update that ends the conflict copy
    /// can be read between its delete of the file and its rename of the new one. The item stays
    /// as it was until the next update, which shows the conflict resolved (and the new name).
    @Test func aFileMissingWhenReadKeepsTheItemUntilTheNextUpdate() {
        let before = [Self.id: GroceryItem(id: Self.id, name: "whole milk", inConflict: true)]
        let during = GroceryLiveList.merged(before, added: [], changed: [Self.result], removed: []) { _ in nil }
        #expect(during == before)
        let after = GroceryLiveList.merged(during, added: [], changed: [Self.result], removed: []) { _ in
            GroceryItem(id: Self.id, name: "oat milk", inConflict: false)
        }
        #expect(GroceryChange.between(during, after).map(\.kind) == [.renamed, .conflictResolved])
    }

    @Test func onlyARemovalTakesAnItemAwayAndAMissingNewItemIsNotAdded() {
        let before = [Self.id: GroceryItem(id: Self.id, name: "milk")]
        #expect(GroceryLiveList.merged(before, added: [], changed: [], removed: [Self.result]) { _ in nil }.isEmpty)
        #expect(GroceryLiveList.merged([:], added: [Self.result], changed: [], removed: []) { _ in nil }.isEmpty)
        let other = MetadataItem(path: "/c/Documents/notes.txt", attributes: [:])
        #expect(GroceryLiveList.merged(before, added: [other], changed: [], removed: []) { _ in
            Issue.record("a file that is not an item is never read")
            return nil
        } == before)
    }

    /// A rename's old name is the old path's last component by bytes: a `/` after U+0600 (a
    /// grapheme "prepend" character) is one Character with it, and a split on characters kept
    /// "\u{600}/Item_…" as the name, so the renamed item stayed on the list twice.
    @Test func aRenamedItemLeavesUnderItsOldNameWhateverPrecedesTheSlash() {
        let newID = GroceryItemID(fileName: "Item_5C1F2B7E-3A44-4E0B-9D6A-0F6E3B2C1D11")!
        let renamed = MetadataItem(path: "/c/Documents/" + newID.fileName,
                                   oldPath: "/c/Documents/moved\u{600}/" + Self.id.fileName, attributes: [:])
        let before = [Self.id: GroceryItem(id: Self.id, name: "milk")]
        let after = GroceryLiveList.merged(before, added: [], changed: [renamed], removed: []) { _ in
            GroceryItem(id: newID, name: "milk")
        }
        #expect(Array(after.keys) == [newID])
    }
}
