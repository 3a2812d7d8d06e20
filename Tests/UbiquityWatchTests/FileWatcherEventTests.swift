import Glibc
import Testing
import UbiquityTesting
@testable import UbiquityIndex
@testable import UbiquityWatch

/// Every event path, on real inotify and real directories. Each test waits for the change it
/// expects, then proves the stronger property: after `sync()`, the index fed with every emitted
/// batch equals a fresh crawl.
@Suite("FileWatcher events", .ownThreads)
struct FileWatcherEventTests {
    @Test func startsWithAListingOfTheRootAndAnAvailabilityNotice() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.mkdir(root + "/Documents")
            try FS.write(root + "/Documents/a.txt", "hello")
        }) { h in
            let recorded = h.recorder.recorded
            #expect(recorded.hasListing("", containing: "Documents/a.txt"))
            #expect(recorded.notices.contains(.containerAvailable(WatchHarness.containerID)))
            let status = h.watcher.status
            #expect(status.watchesUsed == 2)
            #expect(status.availableContainers == [WatchHarness.containerID])
            #expect(status.unwatchedSubtrees.isEmpty)
            try await h.converge()
        }
    }

    /// A container's crawl goes out in parts while the walk goes on, each in a batch of its own
    /// before the listing; the listing still holds every entry, the parts' first.
    @Test func aContainersCrawlGoesOutInPartsBeforeItsListing() async throws {
        var configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100))
        configuration.crawlPartEntries = 4
        try await WatchHarness.with(configuration: configuration, populate: { root in
            try FS.directoriesOfFiles(in: root, directories: 5, files: 6)
        }) { h in
            let batches = h.recorder.recorded.batches
            let parts = batches.flatMap { batch in
                batch.changes.compactMap { change -> CrawlListing.Part? in
                    if case .listingPart(_, let part) = change { part } else { nil }
                }
            }
            guard let listing = batches.lazy.flatMap(\.changes).compactMap({ change -> CrawlListing? in
                if case .listing(_, [], let listing) = change { listing } else { nil }
            }).first else {
                Issue.record("no listing")
                return
            }
            #expect(listing.entries.count == 35)
            #expect(parts.count >= 5, "\(parts.count) parts")
            var next = 0
            for part in parts {
                #expect(part.first == next)
                next = part.first + part.entries.count
            }
            let sent = parts.flatMap(\.entries).map(\.name)
            #expect(sent == Array(listing.entries.prefix(sent.count).map(\.name)))
            #expect(parts.allSatisfy { $0.root.inode == listing.root?.inode })
            let partBatches = batches.filter { $0.changes.contains(where: \.isListingPart) }
            #expect(partBatches.count == parts.count, "one part per batch")
            try FS.write(h.path("d4/late"), "y")
            try await h.recorder.wait(for: "the late file") { $0.hasStat("d4/late") { $0.kind == .regular } }
            try await h.converge()
        }
    }

    /// A second walker reading ahead (forced here; a daemon starts one when the disk is cold)
    /// only reads: the listing is the crawl's own, and the index equals a fresh crawl.
    @Test func aCrawlWithAReadAheadListsWhatACrawlAloneLists() async throws {
        var configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100))
        configuration.crawlReadAhead = .always
        try await WatchHarness.with(configuration: configuration, populate: { root in
            for d in 0..<8 {
                try FS.mkdir(root + "/d\(d)")
                try FS.mkdir(root + "/d\(d)/inner")
                for f in 0..<20 { try FS.write(root + "/d\(d)/inner/f\(f)", "x") }
                try FS.symlink("/", root + "/d\(d)/link")
            }
        }) { h in
            let listed = h.recorder.recorded.changes.lazy.compactMap { change -> Int? in
                if case .listing(_, [], let listing) = change { listing.entries.count } else { nil }
            }.first
            #expect(listed == 8 * 23)
            try await h.converge()
        }
    }

    /// A container's crawl hands whole subtrees to a second walker (on by default): the
    /// directories it walked are watched like the others, so a file created in any of them is
    /// reported, and the index equals a fresh crawl.
    @Test func subtreesASecondWalkerWalkedAreWatched() async throws {
        let configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100))
        #expect(configuration.crawlSubtreeHelper)
        try await WatchHarness.with(configuration: configuration, populate: { root in
            for d in 0..<40 {
                try FS.mkdirs(root + "/d\(d)/a/b/c")
                for f in 0..<5 { try FS.write(root + "/d\(d)/a/b/f\(f)", "x") }
            }
        }) { h in
            let listed = h.recorder.recorded.changes.lazy.compactMap { change -> Int? in
                if case .listing(_, [], let listing) = change { listing.entries.count } else { nil }
            }.first
            #expect(listed == 40 * 9)
            for d in 0..<40 { try FS.write(h.path("d\(d)/a/b/c/late"), "y") }
            try await h.recorder.wait(for: "the 40 late files") { recorded in
                (0..<40).allSatisfy { d in recorded.hasStat("d\(d)/a/b/c/late") { $0.kind == .regular } }
            }
            try await h.converge()
        }
    }

    @Test func createdFileIsAStatWithItsSize() async throws {
        try await WatchHarness.with { h in
            try FS.write(h.path("new.txt"), "12345")
            try await h.recorder.wait(for: "stat of new.txt") { $0.hasStat("new.txt") { $0.size == 5 && $0.kind == .regular } }
            try await h.converge()
        }
    }

    @Test func writesAreCoalescedIntoOneFreshStatPerRead() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/log.txt", "") }) { h in
            try await h.converge()
            let before = h.recorder.recorded.changes.count
            await h.watcher.holdReader()
            // Alternate MODIFY and ATTRIB so the kernel cannot merge them: 100 queued events.
            for i in 0..<50 {
                try FS.write(h.path("log.txt"), "line \(i)\n", append: true)
                try FS.chmod(h.path("log.txt"), i % 2 == 0 ? 0o600 : 0o644)
            }
            h.watcher.releaseReader()
            let size = Int64((0..<50).map { "line \($0)\n".utf8.count }.reduce(0, +))
            try await h.recorder.wait(for: "the final stat of log.txt") { $0.hasStat("log.txt") { $0.size == size } }
            let stats = h.recorder.recorded.changes.dropFirst(before).filter {
                if case .stat(_, let path, _) = $0 { path == ["log.txt"] } else { false }
            }
            #expect(stats.count == 1)
            if case .stat(_, _, let stat)? = stats.first {
                #expect(stat.size == size)
                #expect(stat.mode == 0o644)
            }
            try await h.converge()
        }
    }

    @Test func chmodIsAStatWithTheNewMode() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/a.txt", "x") }) { h in
            try FS.chmod(h.path("a.txt"), 0o600)
            try await h.recorder.wait(for: "stat with mode 600") { $0.hasStat("a.txt") { $0.mode == 0o600 } }
            try await h.converge()
        }
    }

    @Test func xattrChangeIsAStatCarryingTheNewTags() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/a.txt", "x") }) { h in
            try TagReader.setTags(["urgent", "home"], atPath: h.path("a.txt"))
            // The watcher reads the tags where it takes the status: the change itself carries them.
            try await h.recorder.wait(for: "stat carrying the tags") { $0.hasStat("a.txt") { $0.tags == ["urgent", "home"] } }
            let tags = h.recorder.withIndex { index -> [String] in
                guard let id = index.lookup(container: 0, ["a.txt"]) else { return [] }
                return IndexedItem(index, id).tags
            }
            #expect(tags == ["urgent", "home"])
            try TagReader.setTags([], atPath: h.path("a.txt"))
            try await h.recorder.wait(for: "stat with the tags gone") { $0.hasStat("a.txt") { $0.tags.isEmpty } }
            try await h.converge()
        }
    }

    /// The crawl lists entries of watched directories without their tags; the tag pass after
    /// it brings them, and a sync that includes tags covers it.
    @Test func theTagPassBringsTheTagsACrawlLeftOut() async throws {
        try await WatchHarness.with(populate: {
            try FS.write($0 + "/tagged.txt", "x")
            try FS.mkdir($0 + "/folder")
            try TagReader.setTags(["Red"], atPath: $0 + "/tagged.txt")
            try TagReader.setTags(["Blue", "Green"], atPath: $0 + "/folder")
        }) { h in
            let listed = h.recorder.recorded.changes.compactMap { change -> [FileStat]? in
                guard case .listing(_, [], let listing) = change else { return nil }
                return listing.entries.filter { ["tagged.txt", "folder"].contains($0.name) }.map(\.stat)
            }.first ?? []
            #expect(listed.count == 2 && listed.allSatisfy { $0.tagsDeferred && $0.tags.isEmpty })
            let sequence = try await h.watcher.sync(includingTags: true)
            try await h.recorder.wait(for: "batch \(sequence) to be applied") { $0.applied >= sequence }
            let tags = h.recorder.withIndex { index -> [[String]] in
                ["tagged.txt", "folder"].map { name in
                    index.lookup(container: 0, [name]).map { IndexedItem(index, $0).tags } ?? []
                }
            }
            #expect(tags == [["Red"], ["Blue", "Green"]])
            try await h.converge()
        }
    }

    /// A container holding one file tagged Red, crawled with its tags left to the pass, which
    /// waits for a quiet queue of `quietPeriod` or `longestDeferral` since it last read.
    private static func withTaggedFile(quietPeriod: Duration, longestDeferral: Duration, followsConsumer: Bool = false,
                                       _ body: (WatchHarness) async throws -> Void) async throws {
        var configuration = FileWatcher.Configuration(rescanInterval: .milliseconds(100))
        configuration.tagPassFollowsConsumer = followsConsumer
        configuration.tagPassQuietPeriod = quietPeriod
        configuration.tagPassLongestDeferral = longestDeferral
        try await WatchHarness.with(configuration: configuration, populate: {
            try FS.write($0 + "/tagged.txt", "x")
            try TagReader.setTags(["Red"], atPath: $0 + "/tagged.txt")
        }, body)
    }

    /// The tags the index holds for the tagged file, once everything the watcher emitted is applied.
    private static func appliedTags(_ h: WatchHarness) async throws -> [String]? {
        let sequence = try await h.watcher.sync()
        try await h.recorder.wait(for: "batch \(sequence) to be applied") { $0.applied >= sequence }
        return h.recorder.withIndex { index in index.lookup(container: 0, ["tagged.txt"]).map { IndexedItem(index, $0).tags } }
    }

    /// A pass nobody waits for waits for a quiet kernel queue (here: an hour, so never); a sync
    /// that includes tags does not wait for quiet.
    @Test func theTagPassWaitsForAQuietQueueUnlessSomeoneWaitsForTags() async throws {
        try await Self.withTaggedFile(quietPeriod: .seconds(3600), longestDeferral: .seconds(3600)) { h in
            try FS.write(h.path("new.txt"), "12345")
            try await h.recorder.wait(for: "stat of new.txt") { $0.hasStat("new.txt") }
            _ = try await h.watcher.sync()
            #expect(h.watcher.status.tagPassPending > 0)
            let sequence = try await h.watcher.sync(includingTags: true)
            try await h.recorder.wait(for: "batch \(sequence) to be applied") { $0.applied >= sequence }
            let tags = h.recorder.withIndex { index in index.lookup(container: 0, ["tagged.txt"]).map { IndexedItem(index, $0).tags } }
            #expect(tags == ["Red"])
            try await h.converge()
        }
    }

    /// Waiting for the pass without hurrying it: it still waits for quiet (here never) and reads
    /// only once the longest deferral has passed since the crawl; the waiter then finds the tags
    /// emitted. (A hurried pass would be done in milliseconds.)
    @Test func waitingForTheTagPassDoesNotHurryIt() async throws {
        let started = ContinuousClock.now
        try await Self.withTaggedFile(quietPeriod: .seconds(3600), longestDeferral: .seconds(2)) { h in
            await h.watcher.tagPassFinished()
            #expect(ContinuousClock.now - started >= .seconds(2))
            let tags = try await Self.appliedTags(h)
            #expect(h.watcher.status.tagPassPending == 0)
            #expect(tags == ["Red"])
            try await h.converge()
        }
    }

    /// While the consumer answers a query the pass waits as for a busy kernel queue: here the
    /// consumer has applied everything and the queue is quiet, so only the answer under way holds
    /// it, and it reads once the longest deferral has passed since the crawl.
    @Test func theTagPassWaitsWhileTheConsumerAnswers() async throws {
        let started = ContinuousClock.now
        try await Self.withTaggedFile(quietPeriod: .milliseconds(5), longestDeferral: .seconds(2), followsConsumer: true) { h in
            // Nothing applied yet (the harness does not report it): the pass has not read.
            h.watcher.answering(true)
            h.watcher.consumed(through: .max)
            await h.watcher.tagPassFinished()
            #expect(ContinuousClock.now - started >= .seconds(2))
            h.watcher.answering(false)
            try await h.converge()
        }
    }

    /// Once the answer is over the pass reads after the quiet period, not after the longest
    /// deferral (an hour here).
    @Test func theTagPassReadsOnceTheAnswerIsOver() async throws {
        try await Self.withTaggedFile(quietPeriod: .milliseconds(5), longestDeferral: .seconds(3600), followsConsumer: true) { h in
            h.watcher.answering(true)
            h.watcher.consumed(through: .max)
            h.watcher.answering(false)
            try await h.watcher.waitForStatus("the tag pass finished", within: 30) { $0.tagPassPending == 0 }
            #expect(try await Self.appliedTags(h) == ["Red"])
            try await h.converge()
        }
    }

    @Test func deleteIsARemove() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/a.txt", "x") }) { h in
            try FS.unlink(h.path("a.txt"))
            try await h.recorder.wait(for: "remove of a.txt") { $0.hasRemove("a.txt") }
            try await h.converge()
        }
    }

    @Test func renameWithinADirectoryIsOneMove() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/a.txt", "x") }) { h in
            let id = h.recorder.withIndex { $0.lookup(container: 0, ["a.txt"]) }
            try FS.rename(h.path("a.txt"), h.path("b.txt"))
            try await h.recorder.wait(for: "move a.txt → b.txt") { $0.hasMove("a.txt", "b.txt") }
            #expect(!h.recorder.recorded.hasRemove("a.txt"))
            try await h.converge()
            #expect(id != nil && h.recorder.withIndex { $0.lookup(container: 0, ["b.txt"]) } == id)
        }
    }

    @Test func renameAcrossDirectoriesIsOneMove() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.mkdir(root + "/one")
            try FS.mkdir(root + "/two")
            try FS.write(root + "/one/a.txt", "x")
        }) { h in
            try FS.rename(h.path("one/a.txt"), h.path("two/a.txt"))
            try await h.recorder.wait(for: "move one/a.txt → two/a.txt") { $0.hasMove("one/a.txt", "two/a.txt") }
            try await h.converge()
        }
    }

    @Test func renameIntoTheContainerIsACrawlAndOutOfItARemove() async throws {
        try await WatchHarness.with { h in
            try FS.write(h.outside + "/in.txt", "abc")
            try FS.mkdir(h.outside + "/folder")
            try FS.mkdir(h.outside + "/folder/deep")
            try FS.write(h.outside + "/folder/deep/f.txt", "f")

            try FS.rename(h.outside + "/in.txt", h.path("in.txt"))
            try FS.rename(h.outside + "/folder", h.path("folder"))
            try await h.recorder.wait(for: "listings of the moved-in file and folder") {
                $0.hasListing("in.txt") && $0.hasListing("folder", containing: "deep/f.txt")
            }
            try await h.converge()
            // The moved-in folder is watched: a write deep inside is seen.
            try FS.write(h.path("folder/deep/g.txt"), "g")
            try await h.recorder.wait(for: "stat of folder/deep/g.txt") { $0.hasStat("folder/deep/g.txt") }

            let watches = h.watcher.status.watchesUsed
            try FS.rename(h.path("folder"), h.outside + "/folder-back")
            try FS.rename(h.path("in.txt"), h.outside + "/in-back.txt")
            try await h.recorder.wait(for: "removes of the moved-out entries") { $0.hasRemove("folder") && $0.hasRemove("in.txt") }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches - 2)
            // The moved-out folder is no longer watched: nothing about it reaches the container.
            let count = h.recorder.recorded.changes.count
            try FS.write(h.outside + "/folder-back/deep/late.txt", "late")
            try await h.converge()
            #expect(!h.recorder.recorded.changes.dropFirst(count).contains {
                if case .stat(_, let path, _) = $0 { path.last == "late.txt" } else { false }
            })
        }
    }

    @Test func directoryRenameKeepsWatchingTheWholeSubtreeUnderItsNewName() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.mkdirs(root + "/old/a/b/c")
            try FS.write(root + "/old/a/b/c/file.txt", "x")
            try FS.write(root + "/old/top.txt", "y")
        }) { h in
            let watches = h.watcher.status.watchesUsed
            try FS.rename(h.path("old"), h.path("new"))
            try await h.recorder.wait(for: "move old → new") { $0.hasMove("old", "new") }
            #expect(!h.recorder.recorded.hasListing("new"), "a paired rename needs no crawl")
            try FS.write(h.path("new/a/b/c/after.txt"), "z")
            try FS.mkdir(h.path("new/a/b/c/sub"))
            try FS.write(h.path("new/a/b/c/sub/inner.txt"), "w")
            try await h.recorder.wait(for: "stat under the new name") { $0.hasStat("new/a/b/c/after.txt") }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches + 1)
        }
    }

    @Test func mkdirDashPFollowedByFilesConverges() async throws {
        try await WatchHarness.with { h in
            try FS.mkdirs(h.path("a/b/c"))
            for i in 0..<20 { try FS.write(h.path("a/b/c/file\(i).txt"), "\(i)") }
            try FS.mkdirs(h.path("x/y/z/w/v"))
            try FS.write(h.path("x/y/z/w/v/leaf.txt"), "leaf")
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == 1 + 3 + 5)
        }
    }

    @Test func removingADeepTreeConvergesAndForgetsItsWatches() async throws {
        try await WatchHarness.with { h in
            let watches = h.watcher.status.watchesUsed
            for i in 0..<4 {
                try FS.mkdirs(h.path("tree/d\(i)/e/f/g"))
                for j in 0..<5 { try FS.write(h.path("tree/d\(i)/e/f/g/file\(j)"), "x") }
            }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches + 1 + 4 * 4)
            try FS.removeTree(h.path("tree"))
            try await h.recorder.wait(for: "remove of tree") { $0.hasRemove("tree") }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches)
            // A new directory of the same name is watched afresh.
            try FS.mkdirs(h.path("tree/d0"))
            try FS.write(h.path("tree/d0/again"), "again")
            try await h.converge()
        }
    }

    @Test func atomicSaveIsOneMoveOntoTheExistingTarget() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/doc.txt", "version 1") }) { h in
            let id = try #require(h.recorder.withIndex { $0.lookup(container: 0, ["doc.txt"]) })
            try FS.write(h.path(".doc.txt.tmp"), "version two")
            try FS.rename(h.path(".doc.txt.tmp"), h.path("doc.txt"))
            try await h.recorder.wait(for: "move .doc.txt.tmp → doc.txt") { $0.hasMove(".doc.txt.tmp", "doc.txt") }
            try await h.converge()
            #expect(h.recorder.withIndex { $0.lookup(container: 0, ["doc.txt"]) } == id, "the target keeps its identity")
            #expect(h.recorder.withIndex { $0.lookup(container: 0, [".doc.txt.tmp"]) } == nil)
        }
    }

    @Test func writesInsideAPackageDirectoryAreSeen() async throws {
        try await WatchHarness.with(packageTypes: ["gro": "com.example.grocery.package"], populate: { root in
            try FS.mkdirs(root + "/Documents/list.gro/images")
            try FS.write(root + "/Documents/list.gro/items.json", "[]")
        }) { h in
            try FS.write(h.path("Documents/list.gro/items.json"), "[\"milk\"]")
            try FS.write(h.path("Documents/list.gro/images/milk.png"), "png")
            try await h.recorder.wait(for: "stats inside the package") {
                $0.hasStat("Documents/list.gro/items.json") { $0.size == 8 } && $0.hasStat("Documents/list.gro/images/milk.png")
            }
            try await h.converge()
            let size = h.recorder.withIndex { index -> Int64? in
                guard let id = index.lookup(container: 0, ["Documents", "list.gro"]) else { return nil }
                return IndexedItem(index, id).packageSize
            }
            #expect(size == Int64(8 + 3))
        }
    }

    @Test func hardLinkIsASecondEntryWithTheSameInode() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/original.txt", "shared") }) { h in
            try FS.link(h.path("original.txt"), h.path("linked.txt"))
            try await h.recorder.wait(for: "stat of linked.txt") { $0.hasStat("linked.txt") }
            try await h.converge()
            let inodes = h.recorder.withIndex { index in
                [["original.txt"], ["linked.txt"]].compactMap { index.lookup(container: 0, $0).map { index.entry($0).stat.inode } }
            }
            #expect(inodes.count == 2 && inodes[0] == inodes[1])
        }
    }

    @Test func symlinkToOutsideIsRecordedAndNotFollowed() async throws {
        try await WatchHarness.with { h in
            try FS.mkdir(h.outside + "/secret")
            try FS.write(h.outside + "/secret/private.txt", "private")
            try FS.symlink(h.outside + "/secret", h.path("escape"))
            try await h.recorder.wait(for: "stat of the symlink") { $0.hasStat("escape") { $0.kind == .symlink } }
            try await h.converge()
            // A write behind the link is not the container's business.
            try FS.write(h.outside + "/secret/more.txt", "more")
            try await h.converge()
            let leaked = h.recorder.recorded.changes.contains {
                switch $0 {
                case .stat(_, let path, _), .remove(_, let path): path.count > 1 && path[0] == "escape"
                case .listing(_, let path, let listing): path.first == "escape" && !listing.entries.isEmpty
                case .tags(_, let path, _, _): path.first == "escape"
                case .move, .listingPart: false     // parts are of whole containers
                }
            }
            #expect(!leaked)
            #expect(h.watcher.status.watchesUsed == 1)
        }
    }

    @Test func replacingAFileWithADirectoryOfTheSameName() async throws {
        try await WatchHarness.with(populate: { try FS.write($0 + "/thing", "file") }) { h in
            try FS.unlink(h.path("thing"))
            try FS.mkdir(h.path("thing"))
            try FS.write(h.path("thing/inside.txt"), "x")
            try await h.converge()
            try FS.removeTree(h.path("thing"))
            try FS.write(h.path("thing"), "a file again")
            try await h.converge()
        }
    }

    @Test func renameOverAnEmptyDirectory() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.mkdirs(root + "/full/inner")
            try FS.write(root + "/full/inner/f.txt", "f")
            try FS.mkdir(root + "/empty")
        }) { h in
            let watches = h.watcher.status.watchesUsed
            try FS.rename(h.path("full"), h.path("empty"))
            try await h.recorder.wait(for: "move full → empty") { $0.hasMove("full", "empty") }
            try FS.write(h.path("empty/inner/g.txt"), "g")
            try await h.recorder.wait(for: "stat of empty/inner/g.txt") { $0.hasStat("empty/inner/g.txt") }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches - 1)
        }
    }

    @Test func renameBetweenTwoContainersIsARemoveAndACrawl() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.write(root + "/file.txt", "x")
            try FS.mkdirs(root + "/folder/sub")
        }) { h in
            let other = try ContainerID("com.example.other")
            let otherRoot = h.base + "/other"
            try FS.mkdir(otherRoot)
            h.watcher.addContainer(ContainerDescriptor(id: other, root: otherRoot))
            try await h.recorder.wait(for: "the other container") { $0.notices.contains(.containerAvailable(other)) }
            let watches = h.watcher.status.watchesUsed

            try FS.rename(h.path("file.txt"), otherRoot + "/file.txt")
            try FS.rename(h.path("folder"), otherRoot + "/folder")
            try await h.recorder.wait(for: "removes here and listings there") { recorded in
                recorded.hasRemove("file.txt") && recorded.hasRemove("folder")
                    && recorded.changes.contains { if case .listing(other, ["folder"], let l) = $0 { listingPaths(l) == ["sub"] } else { false } }
                    && recorded.changes.contains { if case .listing(other, ["file.txt"], let l) = $0 { l.root?.kind == .regular } else { false } }
            }
            try await h.converge()
            #expect(h.watcher.status.watchesUsed == watches)
            // The folder is watched as part of the other container now.
            try FS.write(otherRoot + "/folder/sub/new.txt", "n")
            try await h.recorder.wait(for: "stat in the other container") { recorded in
                recorded.changes.contains { if case .stat(other, ["folder", "sub", "new.txt"], _) = $0 { true } else { false } }
            }
        }
    }

    @Test func manyFilesMovedBetweenDirectoriesInOneBurst() async throws {
        try await WatchHarness.with(populate: { root in
            try FS.mkdir(root + "/from")
            try FS.mkdir(root + "/to")
            for i in 0..<300 { try FS.write(root + "/from/f\(i)", "\(i)") }
        }) { h in
            for i in 0..<300 { try FS.rename(h.path("from/f\(i)"), h.path("to/g\(i)")) }
            try await h.converge()
            let moves = h.recorder.recorded.changes.filter { if case .move = $0 { true } else { false } }
            #expect(moves.count == 300, "every rename pairs into a move")
        }
    }
}
