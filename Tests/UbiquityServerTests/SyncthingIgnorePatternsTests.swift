import Testing
@testable import UbiquityServer

/// The ignore lines files on demand write (pure): exact, escaped, on top, the user's lines kept.
@Suite("Syncthing ignore lines for evicted items")
struct SyncthingIgnorePatternsTests {
    @Test("An exact line escapes Syncthing's glob characters")
    func escaping() {
        #expect(SyncthingIgnorePatterns.exactLine(for: "Documents/Item_1") == "/Documents/Item_1")
        #expect(SyncthingIgnorePatterns.exactLine(for: "Documents/a*b?[c]{d}\\e") == #"/Documents/a\*b\?\[c\]\{d\}\\e"#)
        #expect(SyncthingIgnorePatterns.exactLine(for: "Documents/!not #comment") == "/Documents/!not #comment")
    }

    @Test("Evicting puts the placeholder line and the item's line on top once; downloading takes only the item's line away")
    func addingAndRemoving() {
        let user = ["// mine", "!/Documents/keep", "*.tmp"]
        let evicted = SyncthingIgnorePatterns.evicting("Documents/Item_1", in: user)
        #expect(evicted == [SyncthingIgnorePatterns.placeholderLine, "/Documents/Item_1"] + user)
        let twice = SyncthingIgnorePatterns.evicting("Documents/Item_2", in: evicted)
        #expect(twice == [SyncthingIgnorePatterns.placeholderLine, "/Documents/Item_2", "/Documents/Item_1"] + user)
        #expect(SyncthingIgnorePatterns.evicting("Documents/Item_2", in: twice) == twice)
        let back = SyncthingIgnorePatterns.downloading("Documents/Item_1", in: twice)
        #expect(back == [SyncthingIgnorePatterns.placeholderLine, "/Documents/Item_2"] + user)
        #expect(SyncthingIgnorePatterns.placeholderLine == "(?d).*.ubiquity-evicted")
    }
}
