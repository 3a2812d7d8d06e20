import Glibc
import Synchronization
import Testing
import UbiquityIndex
import UbiquitySystem
import UbiquityTesting
@testable import UbiquityWatch

/// A crawl whose statuses are taken on two threads (``StatHelper``) lists exactly what a crawl
/// alone lists, in the same order, on real directories of every shape.
@Suite("Crawl with a stat helper")
struct StatHelperCrawlTests {
    private func rows(_ listing: CrawlListing) -> [ListingRow] { ListingRow.rows(listing.entries) }

    private func crawl(_ root: String, helper: Bool) throws -> Crawler.Result {
        try Crawler().crawlSubtree(containerRoot: root, relative: [], statHelper: helper)
    }

    /// deep (a chain of 40), wide (300 directories), flat (5,000 files: many stretches of 1,024),
    /// odd names (spaces, a newline, non-Latin, 255 bytes, one not UTF-8, a cookie), symlinks
    /// (to a directory, dangling, to outside), a FIFO and an unreadable directory.
    private func populate(_ root: String) throws {
        var deep = root + "/deep"
        try FS.mkdir(deep)
        for level in 0..<40 {
            deep += "/l\(level)"
            try FS.mkdir(deep)
            try FS.write(deep + "/f", String(repeating: "x", count: level))
        }
        try FS.mkdir(root + "/wide")
        for d in 0..<300 {
            try FS.mkdir(root + "/wide/d\(d)")
            for f in 0..<3 { try FS.write(root + "/wide/d\(d)/f\(f)", "\(d).\(f)") }
        }
        try FS.mkdir(root + "/flat")
        for f in 0..<5000 { try FS.write(root + "/flat/Item_\(f)", String(repeating: "y", count: f % 50)) }
        try FS.mkdir(root + "/odd")
        for name in ["with space", "new\nline", "Ελληνικά", "日本語", "🙂", String(repeating: "n", count: 255),
                     "\(Crawler.cookiePrefix)123"] {
            try FS.write(root + "/odd/" + name, name)
        }
        try NotUTF8Name.create(in: root + "/odd")
        try FS.symlink(root + "/wide", root + "/odd/to-wide")
        try FS.symlink(root + "/nowhere", root + "/odd/dangling")
        try FS.symlink("/", root + "/odd/to-root")
        try FS.check(mkfifo(root + "/odd/fifo", 0o644), "mkfifo")
        try FS.mkdir(root + "/odd/closed", mode: 0o000)
    }

    @Test func listsWhatACrawlAloneListsOnEveryShape() throws {
        let base = try FS.temporaryDirectory()
        defer {
            chmod(base + "/root/odd/closed", 0o755)
            try? FS.removeTree(base)
        }
        try FS.mkdir(base + "/root")
        try populate(base + "/root")
        let alone = try crawl(base + "/root", helper: false)
        let helped = try crawl(base + "/root", helper: true)
        // deep 1 + 40 × 2, wide 1 + 300 × 4, flat 1 + 5,000, odd 1 + 6 names + 3 links + fifo + closed.
        #expect(alone.listing.entries.count == 81 + 1201 + 5001 + 12)
        expectHoldsTogether(alone.listing)
        #expect(rows(helped.listing) == rows(alone.listing))
        #expect(helped.listing.root == alone.listing.root)
        #expect(helped.skipped == alone.skipped)
        #expect(alone.skipped.contains { $0.call == "name" }, "the name that is not UTF-8 is reported")
        #expect(!rows(alone.listing).contains { $0.name.hasPrefix(Crawler.cookiePrefix) })
    }

    /// The statuses a helper takes are the ones taken alone, slot for slot; the helper does take
    /// some (waited for with a deadline: it is a thread of its own).
    @Test func theHelperTakesStatusesIntoTheirOwnSlots() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        for f in 0..<DirectoryBatch.maximumEntries { try FS.write(base + "/f\(f)", String(repeating: "z", count: f % 97)) }
        let fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try FS.check(fd >= 0 ? 0 : -1, "open \(base)")
        defer { close(fd) }
        guard let helper = StatHelper.start() else {
            Issue.record("no helper thread")
            return
        }
        defer { helper.stop() }
        let deadline = System.monotonicNanoseconds() + 20_000_000_000
        var rounds = 0
        repeat {
            let stream = fdopendir(openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))!
            defer { closedir(stream) }
            let batch = DirectoryBatch()
            #expect(batch.fill(from: stream) == .more)
            #expect(batch.count == DirectoryBatch.maximumEntries)
            helper.stat(directory: fd, batch)
            for index in 0..<batch.count {
                let (status, error) = batch.status(index)
                #expect(error == 0)
                #expect(try FileStat(status) == System.stat(at: fd, batch.name(index), describing: "entry \(index)"))
            }
            rounds += 1
        } while helper.chunksTaken == 0 && System.monotonicNanoseconds() < deadline
        #expect(helper.chunksTaken > 0, "the helper took no chunk in \(rounds) rounds")
    }

    /// Directories renamed, removed and re-created while crawls go on: every listing holds
    /// together (parents before children, parents directories, no name twice in a directory),
    /// and once the changes stop the crawl lists what a crawl alone lists.
    @Test func holdsTogetherWhileDirectoriesMoveAndGo() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let root = base + "/root"
        try FS.mkdir(root)
        try FS.directoriesOfFiles(in: root, directories: 20, files: 200)
        let stop = Churn()
        try ReaderThread.start {
            var round = 0
            while !stop.stopped.load(ordering: .acquiring) {
                let d = round % 20
                _ = rename(root + "/d\(d)", root + "/moved\(d)")
                _ = rename(root + "/moved\(d)", root + "/d\(d)")
                let gone = root + "/gone\(round % 3)"
                if mkdir(gone, 0o755) == 0 {
                    for f in 0..<100 { _ = creat(gone + "/g\(f)", 0o644).closing() }
                    for f in 0..<100 { _ = unlink(gone + "/g\(f)") }
                    _ = rmdir(gone)
                }
                round += 1
            }
            stop.finished.store(true, ordering: .releasing)
        }
        for _ in 0..<30 {
            let result = try crawl(root, helper: true)
            expectHoldsTogether(result.listing)
        }
        stop.stopped.store(true, ordering: .releasing)
        let deadline = System.monotonicNanoseconds() + 20_000_000_000
        while !stop.finished.load(ordering: .acquiring) && System.monotonicNanoseconds() < deadline { sched_yield() }
        let churnEnded = stop.finished.load(ordering: .acquiring)
        #expect(churnEnded)
        let alone = try crawl(root, helper: false)
        let helped = try crawl(root, helper: true)
        #expect(rows(helped.listing) == rows(alone.listing))
        #expect(alone.listing.entries.count == 20 * 201)
    }

    /// Parents before their children and directories, and no name twice in a directory.
    private func expectHoldsTogether(_ listing: CrawlListing, sourceLocation: SourceLocation = #_sourceLocation) {
        var names = Set<[UInt8]>()
        for (position, entry) in listing.entries.enumerated() {
            #expect(entry.parent < Int32(position), sourceLocation: sourceLocation)
            if entry.parent >= 0 {
                #expect(listing.entries[Int(entry.parent)].stat.kind == .directory, sourceLocation: sourceLocation)
            }
            #expect(names.insert(Array("\(entry.parent)/\(entry.name)".utf8)).inserted, "\(entry.name) twice",
                    sourceLocation: sourceLocation)
        }
    }

    private final class Churn: Sendable {
        let stopped = Atomic(false)
        let finished = Atomic(false)
    }
}

private extension Int32 {
    /// Closes a descriptor just created (ignores -1).
    func closing() -> Int32 {
        if self >= 0 { close(self) }
        return self
    }
}
