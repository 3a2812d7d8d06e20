import Foundation
import Glibc
import Testing
import UbiquityIndex
import UbiquityTesting
@testable import UbiquityWatch

/// A sync engine's replace on real directories through a real watcher: the index stays equal to
/// a fresh crawl, and the item keeps its identity.
@Suite(.ownThreads) struct EngineReplaceWatchTests {
    /// `gap`: how long the engine takes between its two steps. A loaded machine can hold the
    /// engine that long between two system calls; the watcher waits for the rename (up to
    /// `EngineReplace.window`) while the engine's temporary file is there. `between`: another
    /// file appears between the two steps, so the read with the first step does not end with it.
    @Test(arguments: [false, true], [(0, false), (300, false), (300, true)])
    func aReceivedVersionReplacesTheItem(inConflict: Bool, gap: (milliseconds: Int, between: Bool)) async throws {
        try await Self.replace(before: ["Documents/.syncthing.Item_1.tmp": "oat milk"]) { harness in
            if inConflict {
                #expect(rename(harness.path("Documents/Item_1"), harness.path("Documents/Item_1.sync-conflict-20261122-103000-ABCDEFG")) == 0)
            } else {
                #expect(unlink(harness.path("Documents/Item_1")) == 0)
            }
            if gap.between { try FS.write(harness.path("Documents/notes.txt"), "meanwhile") }
            if gap.milliseconds > 0 { usleep(useconds_t(gap.milliseconds * 1000)) }     // sleep-ok: the engine descheduled: the scenario, not a wait
            #expect(rename(harness.path("Documents/.syncthing.Item_1.tmp"), harness.path("Documents/Item_1")) == 0)
        }
    }

    /// Resolving a conflict elsewhere, as Syncthing applies it here when the chosen version is
    /// the content of the conflict copy: the copy is renamed to the engine's temporary name (its
    /// blocks reused), the item deleted, and the temporary file renamed over it.
    @Test func theConflictCopyReusedAsTheNewVersionReplacesTheItem() async throws {
        let copy = "Documents/Item_1.sync-conflict-20261122-103000-ABCDEFG"
        try await Self.replace(before: [copy: "oat milk"]) { harness in
            #expect(rename(harness.path(copy), harness.path("Documents/.syncthing.Item_1.tmp")) == 0)
            #expect(chmod(harness.path("Documents/.syncthing.Item_1.tmp"), 0o644) == 0)
            #expect(unlink(harness.path("Documents/Item_1")) == 0)
            #expect(rename(harness.path("Documents/.syncthing.Item_1.tmp"), harness.path("Documents/Item_1")) == 0)
        }
    }

    /// `Documents/Item_1` and the files of `before`, indexed; then `steps`: the index must equal a
    /// fresh crawl, with no removal of `Item_1` and `Item_1` still the same item.
    static func replace(before files: [String: String], steps: (WatchHarness) throws -> Void) async throws {
        let harness = try await WatchHarness.start()
        do {
            try FS.mkdir(harness.path("Documents"))
            try FS.write(harness.path("Documents/Item_1"), "milk")
            for (path, contents) in files { try FS.write(harness.path(path), contents) }
            try await harness.converge()
            let item = { harness.recorder.withIndex { index in index.lookup(container: 0, ["Documents", "Item_1"]).map(index.identity) } }
            let identity = item()
            let before = harness.recorder.recorded.changes.count
            try steps(harness)
            try await harness.converge()
            let changes = harness.recorder.recorded.changes.dropFirst(before)
            #expect(!changes.contains { if case .remove(_, let path) = $0 { path == ["Documents", "Item_1"] } else { false } }, "\(Array(changes))")
            #expect(identity != nil && item() == identity, "the item was replaced by a new one: \(Array(changes))")
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
