import Testing
import UbiquityIndex
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

    /// `café` precomposed and decomposed are two items side by side: evicting or downloading one
    /// keeps the other's line. Taken away, the other's absence would read as its deletion.
    @Test("Each of two canonically equal names keeps its own line")
    func canonicallyEqualNames() {
        let composed = "Documents/caf\u{E9}", decomposed = "Documents/cafe\u{301}"
        let one = SyncthingIgnorePatterns.evicting(composed, in: [])
        let both = SyncthingIgnorePatterns.evicting(decomposed, in: one)
        #expect(both.count == 3)
        #expect(both.map { Array($0.utf8) } == [SyncthingIgnorePatterns.placeholderLine, "/" + decomposed, "/" + composed].map { Array($0.utf8) })
        let back = SyncthingIgnorePatterns.downloading(decomposed, in: both)
        #expect(back.map { Array($0.utf8) } == one.map { Array($0.utf8) })
    }
}
