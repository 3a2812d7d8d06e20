import Glibc
import Testing
import UbiquityIndex
import UbiquitySystem
import UbiquityTesting
@testable import UbiquityWatch

/// A crawl that hands whole subtrees to a second walker (``SubtreeHelper``) lists exactly what a
/// crawl alone lists, in the same order, asks its visitor about the same directories in the same
/// order (watched by either thread), sends the same parts ahead, and stays within its watches.
@Suite("Crawl with a subtree helper")
struct SubtreeHelperCrawlTests {
    private static func rows(_ entries: CrawlEntries) -> [ListingRow] { ListingRow.rows(entries) }

    /// A visitor that watches every directory (real inotify watches, through `/proc/self/fd`)
    /// while its allowance lasts, and records what it was asked in order and the parts sent.
    private struct Recording: CrawlVisitor {
        let inotify: Int32
        let root: String
        let allowance: WatchAllowance
        let split: Bool
        var partSize = 0
        /// The second walker to use instead of one the walk starts (a test counts what it did).
        var helper: SubtreeHelper? = nil
        /// Each directory asked about, in order, and whether it is watched.
        var asked: [(path: [String], watched: Bool)] = []
        var adopted = 0
        var parts: [CrawlListing.Part] = []

        mutating func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool {
            guard allowance.take() else {
                asked.append((path, false))
                return false
            }
            let wd = inotify_add_watch(inotify, "/proc/self/fd/\(directory)", InotifyMask.directoryEvents.rawValue)
            asked.append((path, wd >= 0))
            return wd >= 0
        }

        var readAhead: FileWatcher.Configuration.ReadAhead { .never }
        var statHelper: Bool { false }

        mutating func subtreeWatching() -> SubtreeWatching? {
            split ? SubtreeWatching(inotify: inotify, throughProc: true, allowance: allowance, containerRoot: root,
                                    helper: helper) : nil
        }

        mutating func adopt(_ directory: WalkedDirectory, path: [String]) -> Bool {
            adopted += 1
            let watched = if case .watched = directory.watch { true } else { false }
            asked.append((path, watched))
            return watched
        }

        mutating func sendAhead(_ part: CrawlListing.Part) { parts.append(part) }
    }

    /// 30 chains 12 deep (a file at each level), 40 directories of 25 files with long names,
    /// odd names, a name that is not UTF-8, symlinks, a FIFO and an unreadable directory.
    private func populate(_ root: String) throws {
        for chain in 0..<30 {
            var deep = root + "/chain\(chain)"
            try FS.mkdir(deep)
            for level in 0..<12 {
                try FS.write(deep + "/f\(level)", String(repeating: "x", count: level))
                deep += "/l\(level)"
                try FS.mkdir(deep)
            }
        }
        try FS.mkdir(root + "/long")
        for d in 0..<40 {
            let directory = root + "/long/" + String(repeating: "日本語-\(d)-", count: 8)
            try FS.mkdir(directory)
            for f in 0..<25 { try FS.write(directory + "/" + String(repeating: "Ελληνικά🙂\(f)", count: 6), "\(d).\(f)") }
        }
        try FS.mkdir(root + "/odd")
        try FS.mkdir(root + "/odd/inner")
        for name in ["with space", "new\nline", "🙂", String(repeating: "n", count: 255), "\(Crawler.cookiePrefix)1"] {
            try FS.write(root + "/odd/inner/" + name, name)
        }
        try NotUTF8Name.create(in: root + "/odd/inner")
        try FS.symlink(root + "/long", root + "/odd/inner/to-long")
        try FS.symlink("/", root + "/odd/inner/to-root")
        try FS.check(mkfifo(root + "/odd/inner/fifo", 0o644), "mkfifo")
        try FS.mkdir(root + "/odd/closed", mode: 0o000)
    }

    private func walk(_ root: String, split: Bool, watches: Int, partSize: Int = 0,
                      helper: SubtreeHelper? = nil) throws -> (Crawler.Result, Recording) {
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        try FS.check(inotify >= 0 ? 0 : -1, "inotify_init1")
        defer { close(inotify) }
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try FS.check(fd >= 0 ? 0 : -1, "open \(root)")
        defer { close(fd) }
        var visitor = Recording(inotify: inotify, root: root, allowance: WatchAllowance(watches), split: split,
                                partSize: partSize, helper: helper)
        let result = try Crawler().walk(root: fd, rootPath: root, relative: [], visitor: &visitor)
        return (result, visitor)
    }

    /// Walks with the helper until it has walked some subtree (a thread of its own: waited for
    /// with a deadline), checking every walk against one alone.
    /// What a helped walk gives as a walk alone does: its rows, root and skipped names, the
    /// directories asked about (in order, each watched), and at least `parts` parts, each final
    /// when sent: together they are the listing's first entries.
    private static func expectAsAlone(_ alone: (Crawler.Result, Recording), _ helped: (Crawler.Result, Recording),
                                      parts minimum: Int) {
        #expect(rows(helped.0.listing.entries) == rows(alone.0.listing.entries))
        #expect(helped.0.listing.root == alone.0.listing.root)
        #expect(helped.0.skipped == alone.0.skipped)
        #expect(helped.1.asked.map(\.path) == alone.1.asked.map(\.path))
        #expect(helped.1.asked.allSatisfy(\.watched) && alone.1.asked.allSatisfy(\.watched))
        var next = 0
        var sent = CrawlEntries()
        for part in helped.1.parts {
            #expect(part.first == next)
            next += part.entries.count
            for entry in part.entries { sent.append(entry) }
        }
        #expect(helped.1.parts.count >= minimum, "\(helped.1.parts.count) parts")
        #expect(rows(sent) == Array(rows(helped.0.listing.entries).prefix(sent.count)))
    }

    /// With `watches` fewer than the directories, both walks add exactly that many, the helped
    /// one asks about no directory twice nor below an unwatched one, and lists as the walk alone.
    private static func expectWatchesWithin(_ watches: Int, _ alone: (Crawler.Result, Recording),
                                            _ helped: (Crawler.Result, Recording)) {
        #expect(alone.1.asked.filter(\.watched).count == watches)
        #expect(helped.1.asked.filter(\.watched).count == watches)
        let paths = helped.1.asked.map(\.path)
        #expect(Set(paths).count == paths.count, "a directory asked about twice")
        let watched = Set(helped.1.asked.filter(\.watched).map(\.path))
        for path in paths where !path.isEmpty {
            #expect(watched.contains(Array(path.dropLast())), "\(path) asked about below an unwatched parent")
        }
        let names: (Crawler.Result) -> [String] = { $0.listing.entries.map { "\($0.parent)/\($0.name)" } }
        #expect(names(helped.0) == names(alone.0))
    }

    private func withHelpedWalks(_ root: String, watches: Int, partSize: Int = 0,
                                 _ check: (_ alone: (Crawler.Result, Recording), _ helped: (Crawler.Result, Recording)) throws -> Void) throws {
        let alone = try walk(root, split: false, watches: watches, partSize: partSize)
        #expect(alone.1.adopted == 0)
        let deadline = System.monotonicNanoseconds() + 20_000_000_000
        var rounds = 0
        var adopted = 0
        repeat {
            let helped = try walk(root, split: true, watches: watches, partSize: partSize)
            try check(alone, helped)
            adopted = helped.1.adopted
            rounds += 1
        } while adopted == 0 && System.monotonicNanoseconds() < deadline
        #expect(adopted > 0, "the helper walked no subtree in \(rounds) rounds")
    }

    @Test func listsWatchesAndSendsWhatACrawlAloneDoes() throws {
        let base = try FS.temporaryDirectory()
        defer {
            chmod(base + "/root/odd/closed", 0o755)
            try? FS.removeTree(base)
        }
        try FS.mkdir(base + "/root")
        try populate(base + "/root")
        try withHelpedWalks(base + "/root", watches: 100_000, partSize: 64) { alone, helped in
            // chains 30 × 25, long 1 + 40 × 26, odd: inner, closed, 4 names, 2 links, the FIFO.
            #expect(alone.0.listing.entries.count == 750 + 1041 + 10)
            Self.expectAsAlone(alone, helped, parts: 10)
        }
        #expect(try walk(base + "/root", split: false, watches: 100_000).0.skipped.contains { $0.call == "name" })
    }

    /// With fewer watches than directories, the two walkers together add exactly as many as the
    /// allowance held, every directory whose parent is watched is asked about once, and the
    /// listing's entries are the same (only whose tags wait for the tag pass differs).
    @Test func staysWithinItsWatches() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let root = base + "/root"
        try FS.mkdir(root)
        for d in 0..<40 {
            try FS.mkdir(root + "/d\(d)")
            for e in 0..<5 {
                try FS.mkdir(root + "/d\(d)/e\(e)")
                try FS.write(root + "/d\(d)/e\(e)/f", "x")
            }
        }
        // 1 + 40 + 200 directories, 150 watches.
        try withHelpedWalks(root, watches: 150) { alone, helped in
            Self.expectWatchesWithin(150, alone, helped)
            #expect(alone.0.listing.entries.count == 40 * 11)
        }
    }

    /// Like the default tree: Documents with three subdirectories, the one readdir gives last
    /// (the one the helper is handed) ten times the others and four levels deep, so that the crawl
    /// reaches it while the helper is still walking it. Names that are not UTF-8 down there are
    /// skipped (their paths say which walk's terms they were recorded in).
    private func populateLopsided(_ root: String) throws {
        let documents = root + "/Documents"
        try FS.mkdir(documents)
        for name in ["a", "b", "c"] { try FS.mkdir(documents + "/" + name) }
        let order = try FS.names(documents)
        for small in order.dropLast() {
            for d in 0..<12 {
                try FS.mkdir(documents + "/\(small)/d\(d)")
                for f in 0..<5 { try FS.write(documents + "/\(small)/d\(d)/f\(f)", "\(f)") }
            }
        }
        let big = documents + "/" + order.last!
        for d in 0..<24 {
            for e in 0..<6 {
                let directory = big + "/d\(d)/e\(e)"
                try FS.mkdirs(directory + "/g")
                for f in 0..<8 { try FS.write(directory + "/f\(f)", "\(d).\(e).\(f)") }
                try FS.write(directory + "/g/h", "h")
                if e == 3 { try NotUTF8Name.create(in: directory + "/g") }
            }
        }
    }

    /// Walks with a helper of the test's own until `count` of it is above 0 (waited for with a
    /// deadline), checking every walk against one alone; the rounds it took, and the count.
    private func withOwnHelper(_ root: String, watches: Int, partSize: Int = 0, until count: (SubtreeHelper) throws -> Int,
                               _ check: (_ alone: (Crawler.Result, Recording), _ helped: (Crawler.Result, Recording)) throws -> Void,
                               afterEach: (_ count: Int, _ helped: (Crawler.Result, Recording)) -> Void = { _, _ in }) throws -> (rounds: Int, count: Int) {
        let alone = try walk(root, split: false, watches: watches, partSize: partSize)
        let deadline = System.monotonicNanoseconds() + 20_000_000_000
        var rounds = 0
        var counted = 0
        repeat {
            let helper = try #require(SubtreeHelper.start())
            defer { helper.stop() }
            let helped = try walk(root, split: true, watches: watches, partSize: partSize, helper: helper)
            try check(alone, helped)
            counted = try count(helper)
            afterEach(counted, helped)
            rounds += 1
        } while counted == 0 && System.monotonicNanoseconds() < deadline
        return (rounds, counted)
    }

    /// Walks with a helper of the test's own until the crawl's thread walked a piece of a
    /// subtree the helper was walking (waited for with a deadline), checking every walk against
    /// one alone.
    private func withPiecesWalkedBack(_ root: String, watches: Int, partSize: Int = 0,
                                      _ check: (_ alone: (Crawler.Result, Recording), _ helped: (Crawler.Result, Recording)) throws -> Void) throws {
        let (rounds, pieces) = try withOwnHelper(root, watches: watches, partSize: partSize, until: { try #require($0.back).subtreesWalked },
                                                 check, afterEach: { pieces, helped in if pieces > 0 { #expect(helped.1.adopted > 0) } })
        #expect(pieces > 0, "the crawl walked no piece of the helper's subtree in \(rounds) rounds")
    }

    /// The crawl reaches the subtree the helper is walking and, in place of waiting, walks the
    /// pieces the helper hands back: the listing, the skipped names, the directories asked about
    /// (in order, each watched) and the parts sent are a walk alone's.
    @Test func walksPiecesOfTheSubtreeItWaitsFor() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let root = base + "/root"
        try FS.mkdir(root)
        try populateLopsided(root)
        try withPiecesWalkedBack(root, watches: 100_000, partSize: 64) { alone, helped in
            // Documents, a b c, 2 × 12 × (1 + 5), 24 + 24 × 6 × (e, 8 files, g, h).
            #expect(alone.0.listing.entries.count == 1 + 3 + 144 + 24 + 24 * 6 * 11)
            #expect(alone.0.skipped.count == 24 && alone.0.skipped.allSatisfy { $0.path.count == 6 })
            // A subtree taken in comes whole, so fewer parts go than alone (where 27 do).
            Self.expectAsAlone(alone, helped, parts: 2)
        }
    }

    /// The pieces' watches come from the same allowance: with fewer than the directories, the
    /// three walkers together add exactly as many, and none below an unwatched directory.
    @Test func piecesStayWithinTheWatches() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let root = base + "/root"
        try FS.mkdir(root)
        try populateLopsided(root)
        // 1 + 1 + 3 + 24 + 24 + 144 + 144 directories, 300 watches.
        try withPiecesWalkedBack(root, watches: 300) { alone, helped in
            Self.expectWatchesWithin(300, alone, helped)
            #expect(helped.0.skipped == alone.0.skipped)
        }
    }

    /// The helper holds a second subtree while it walks one, so that it goes on to it without
    /// waiting for the crawl to notice it is done: on a directory of 300 small subdirectories,
    /// some subtree it finished had the next one waiting (waited for with a deadline), and the
    /// walk lists as one alone.
    @Test func holdsTheNextSubtreeWhileItWalksOne() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        let root = base + "/root"
        try FS.mkdir(root)
        try FS.directoriesOfFiles(in: root, directories: 300, files: 3)
        let (rounds, followed) = try withOwnHelper(root, watches: 100_000, until: \.subtreesFollowedAtOnce) { alone, helped in
            Self.expectAsAlone(alone, helped, parts: 0)
        }
        #expect(followed > 0, "the helper never had a subtree waiting when it finished one, in \(rounds) rounds")
    }

    @Test func anAllowanceGivesEachWatchOnce() {
        let allowance = WatchAllowance(3)
        #expect(allowance.take() && allowance.take() && allowance.take())
        #expect(!allowance.take())
        allowance.giveBack()
        #expect(allowance.count == 1)
        #expect(WatchAllowance(-5).count == 0)
    }
}
