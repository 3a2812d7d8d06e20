import Testing
import UbiquityTesting
@testable import UbiquityIndex
@testable import UbiquityWatch

/// Two names equal as Swift strings but not byte for byte — a precomposed `é` (`C3 A9`) and an
/// `e` followed by a combining acute accent (`65 CC 81`) — are two entries on Linux, side by side
/// in one directory. The watcher keeps them apart (``ExactName``); before, the second directory
/// took the first one's place in the watch tree, so moving one away dropped the other's watch, and
/// a change in one could be read in the other. Real inotify, real directories.
@Suite("Canonically equivalent names", .ownThreads)
struct CanonicallyEquivalentNameTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func equalAsStringsTwoNamesAsExactNames() {
        #expect(Self.composed == Self.decomposed)
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
        #expect(ExactName(Self.composed) != ExactName(Self.decomposed))
        #expect(Set([ExactName(Self.composed), ExactName(Self.decomposed), ExactName("caf\u{E9}")]).count == 2)
        #expect(ExactName.sameBytes(Self.composed, "caf\u{E9}"))
        #expect(!ExactName.sameBytes(Self.composed, Self.decomposed))
        // Paths as arrays of names: where one name ends is part of the hash.
        #expect(ExactName.path(["ab", "c"]).hashValue != ExactName.path(["a", "bc"]).hashValue)
        #expect(ExactName.path(["ab", "c"]) != ExactName.path(["a", "bc"]))
    }

    /// Two skipped entries (what `status` lists and counts as skipped) at paths equal only as
    /// strings are two entries; the same path read again is one. Root reads every directory, so
    /// a real unreadable one cannot be made here: the entry's own equality is what decides.
    @Test func twoSkippedDirectoriesSpeltAlikeAreTwoEntries() throws {
        let container = try ContainerID("com.example.x")
        let denied = "openat: Permission denied"
        let composed = SkippedEntry(container: container, path: ["Documents", Self.composed], reason: denied)
        let decomposed = SkippedEntry(container: container, path: ["Documents", Self.decomposed], reason: denied)
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed, SkippedEntry(container: container, path: ["Documents", "caf\u{E9}"], reason: denied)]).count == 2)
        #expect(composed == SkippedEntry(container: container, path: ["Documents", "caf\u{E9}"], reason: denied))
        #expect(composed != SkippedEntry(container: container, path: ["Documents", Self.composed], reason: "other"))
    }

    @Test func theWatchTreeHoldsBothDirectories() {
        var tree = WatchTree()
        _ = tree.link(1, container: 0, parent: nil, name: "")
        #expect(tree.link(2, container: 0, parent: 1, name: Self.composed).isEmpty)
        #expect(tree.link(3, container: 0, parent: 1, name: Self.decomposed).isEmpty, "nothing displaced")
        #expect(tree.child(of: 1, named: Self.composed) == 2)
        #expect(tree.child(of: 1, named: Self.decomposed) == 3)
        #expect(tree.lookup(container: 0, [Self.composed]) == 2)
        #expect(tree.remove(subtree: 3) == [3])
        #expect(tree.child(of: 1, named: Self.composed) == 2, "the other one stays")
        #expect(tree.child(of: 1, named: Self.decomposed) == nil)
        #expect(tree.move(2, to: 1, name: Self.decomposed).isEmpty)
        #expect(tree.child(of: 1, named: Self.decomposed) == 2)
        #expect(tree.child(of: 1, named: Self.composed) == nil)
    }

    /// The failure this was found by: directories `café` made one way, then the other; the first
    /// moved out of the container; a file written in the second was never seen.
    @Test func movingOneAwayKeepsWatchingTheOther() async throws {
        try await WatchHarness.with { h in
            let watches = h.watcher.status.watchesUsed
            try FS.mkdir(h.path(Self.decomposed))
            try await h.recorder.wait(for: "listing of the decomposed name") { $0.hasListing(Self.decomposed) }
            try FS.mkdir(h.path(Self.composed))
            try await h.recorder.wait(for: "listing of the composed name") { $0.hasListing(Self.composed) }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches + 2)

            try FS.rename(h.path(Self.decomposed), h.outside + "/away")
            try await h.recorder.wait(for: "remove of the decomposed name") { $0.hasRemove(Self.decomposed) }
            try FS.write(h.path(Self.composed + "/after.txt"), "x")
            try await h.recorder.wait(for: "stat of after.txt in the composed name") { $0.hasStat(Self.composed + "/after.txt") }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches + 1)
        }
    }

    /// No watch to spare (the budget is the root's): both directories are unwatched, each its own
    /// record, each rescanned; moving one away forgets only its record. Before, the second was no
    /// record of its own, so a file written in it was never seen.
    @Test func bothUnwatchedDirectoriesAreRescannedAndForgottenApart() async throws {
        let configuration = FileWatcher.Configuration(maxWatches: 1, rescanInterval: .milliseconds(100))
        try await WatchHarness.with(configuration: configuration, populate: { root in
            try FS.mkdir(root + "/" + Self.composed)
            try FS.mkdir(root + "/" + Self.decomposed)
        }) { h in
            #expect(h.watcher.status.unwatchedSubtrees.count == 2)
            try FS.write(h.path(Self.composed + "/c.txt"), "c")
            try FS.write(h.path(Self.decomposed + "/d.txt"), "d")
            try await h.recorder.wait(for: "rescans of both directories with their new files") {
                $0.hasListing(Self.composed, containing: "c.txt") && $0.hasListing(Self.decomposed, containing: "d.txt")
            }
            try FS.rename(h.path(Self.composed), h.outside + "/away")
            try await h.recorder.wait(for: "remove of the composed name") { $0.hasRemove(Self.composed) }
            try FS.write(h.path(Self.decomposed + "/after.txt"), "x")
            try await h.recorder.wait(for: "a rescan of the decomposed name with after.txt") {
                $0.hasListing(Self.decomposed, containing: "after.txt")
            }
            let left = h.watcher.status.unwatchedSubtrees.map(\.path)
            #expect(left.count == 1 && left.first.map { $0.count == 1 && ExactName.sameBytes($0[0], Self.decomposed) } == true, "\(left)")
            try await h.converge()
        }
    }

    /// `status` lists unwatched directories in byte order, as the engine does: compared as
    /// strings joined by `/`, `café0` and `café1` made both ways came as pairs in whatever order
    /// the watcher's dictionary held them, which differs from one run of the daemon to the next.
    @Test func statusListsUnwatchedDirectoriesInByteOrder() async throws {
        let names = ["0", "1"].flatMap { [Self.composed + $0, Self.decomposed + $0] }
        let configuration = FileWatcher.Configuration(maxWatches: 1, rescanInterval: .seconds(60))
        try await WatchHarness.with(configuration: configuration, populate: { root in
            for name in names { try FS.mkdir(root + "/" + name) }
        }) { h in
            let listed = h.watcher.status.unwatchedSubtrees.map { ExactName.path($0.path) }
            // `65` (e) before `C3` (the first byte of precomposed é): both decomposed names first.
            let byteOrder = [Self.decomposed + "0", Self.decomposed + "1", Self.composed + "0", Self.composed + "1"]
            #expect(listed == byteOrder.map { ExactName.path([$0]) })
            try await h.converge()
        }
    }

    /// Changes in both, read in one pass: each file's status is taken in its own directory.
    @Test func aChangeInEachIsReadInItsOwnDirectory() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.mkdir(root + "/" + Self.composed)
            try FS.mkdir(root + "/" + Self.decomposed)
        }) { h in
            for round in 1...3 {
                try FS.write(h.path(Self.composed + "/f"), String(repeating: "c", count: round))
                try FS.write(h.path(Self.decomposed + "/f"), String(repeating: "d", count: 10 * round))
                try await h.recorder.wait(for: "both files' sizes, round \(round)") {
                    $0.hasStat(Self.composed + "/f") { $0.size == round } && $0.hasStat(Self.decomposed + "/f") { $0.size == 10 * round }
                }
            }
            // Every size seen is one its own file had (0 between a write's create and its bytes).
            let recorded = h.recorder.recorded
            #expect(recorded.stats(Self.composed + "/f").allSatisfy { [0, 1, 2, 3].contains($0.size) })
            #expect(recorded.stats(Self.decomposed + "/f").allSatisfy { [0, 10, 20, 30].contains($0.size) },
                    "a status read in the other directory")
            try await h.converge()
        }
    }

    /// Two files so named in one directory, each with its own tags.
    @Test func eachFileKeepsItsOwnTags() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.write(root + "/" + Self.composed, "a")
            try FS.write(root + "/" + Self.decomposed, "b")
            try TagReader.setTags(["Red"], atPath: root + "/" + Self.composed)
            try TagReader.setTags(["Blue"], atPath: root + "/" + Self.decomposed)
        }) { h in
            let sequence = try await h.watcher.sync(includingTags: true)
            try await h.recorder.wait(for: "batch \(sequence) to be applied") { $0.applied >= sequence }
            let tags = h.recorder.withIndex { index in
                [Self.composed, Self.decomposed].map { name in
                    index.lookup(container: 0, [name]).map { IndexedItem(index, $0).tags } ?? []
                }
            }
            #expect(tags == [["Red"], ["Blue"]])
            try await h.converge()
        }
    }
}
