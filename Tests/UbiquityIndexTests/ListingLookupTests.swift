import Testing
@testable import UbiquityIndex

/// A large listing diffed against the index, its entries looked up once on two threads
/// (``ListingLookup``): the index ends as a fresh one given the same listing would, and what
/// stayed or moved keeps its id.
@Suite("Listing lookup")
struct ListingLookupTests {
    /// A tree of `directories` directories under Documents, each with `files` files and a
    /// sub-directory holding a few; inode and birth time from the entry's number, so that a
    /// listing can show the same file under another name.
    struct Tree {
        var entries: [CrawlListing.Entry] = []
        var number: UInt64 = 10

        mutating func add(_ parent: Int32, _ name: String, _ kind: FileStat.Kind, size: Int64 = 1, inode: UInt64? = nil) -> Int32 {
            number += 1
            let id = inode ?? number
            entries.append(CrawlListing.Entry(parent: parent, name: name, stat: FileStat(
                kind: kind, size: kind == .directory ? 4096 : size, modified: Int64(id), created: Int64(id), changed: Int64(id), inode: id)))
            return Int32(entries.count - 1)
        }
    }

    static let root = FileStat(kind: .directory, inode: 1)

    /// The first listing, and a second one with every kind of difference a check finds: files
    /// gone, new ones, sizes changed, a file that became a directory, names that may be
    /// placeholders' (when `dotNames`: a directory holding one is looked up again after a rename),
    /// and (when `renames`) a directory and a file under new names, and a file moved to another
    /// directory.
    static func listings(renames: Bool, dotNames: Bool = true) -> (before: [CrawlListing.Entry], after: [CrawlListing.Entry], moved: [(String, String)]) {
        func build(_ second: Bool) -> [CrawlListing.Entry] {
            var tree = Tree()
            let documents = tree.add(-1, "Documents", .directory, inode: 2)
            for d in 0..<40 {
                let base = UInt64(1_000 + d * 1_000)
                let name = second && renames && d == 7 ? "renamed-7" : "dir-\(d)"
                let directory = tree.add(documents, name, .directory, inode: base)
                for f in 0..<240 {
                    if second && d % 5 == 1 && f % 9 == 0 { continue }
                    let size: Int64 = second && d % 4 == 2 && f % 11 == 0 ? 77 : 1
                    if second && renames && d == 12 && f == 30 { continue }
                    let fileName = second && renames && d == 3 && f == 5 ? "Item_moved" : (f % 50 == 0 && dotNames ? ".hidden-\(f)" : "file-\(f)")
                    if second && d == 9 && f == 4 {
                        let became = tree.add(directory, fileName, .directory, inode: base + 900)
                        _ = tree.add(became, "inside", .regular, inode: base + 901)
                        continue
                    }
                    _ = tree.add(directory, fileName, .regular, size: size, inode: base + UInt64(f) + 1)
                }
                if second && d % 6 == 0 { _ = tree.add(directory, "new-\(d)", .regular, inode: base + 950) }
                if second && renames && d == 13 { _ = tree.add(directory, "moved-in", .regular, inode: 1_000 + 12 * 1_000 + 31) }
                let sub = tree.add(directory, "sub", .directory, inode: base + 960)
                for s in 0..<3 { _ = tree.add(sub, "leaf-\(s)", .regular, inode: base + 970 + UInt64(s)) }
            }
            return tree.entries
        }
        let moved = renames ? [("Documents/dir-7/sub/leaf-1", "Documents/renamed-7/sub/leaf-1"),
                               ("Documents/dir-3/file-5", "Documents/dir-3/Item_moved"),
                               ("Documents/dir-12/file-30", "Documents/dir-13/moved-in")] : []
        return (build(false), build(true), moved)
    }

    /// Each entry's path (below the container root) and status.
    static func paths(_ entries: [CrawlListing.Entry]) -> [String: FileStat] {
        var paths: [String] = [], result: [String: FileStat] = [:]
        for entry in entries {
            let path = entry.parent == -1 ? entry.name : paths[Int(entry.parent)] + "/" + entry.name
            paths.append(path)
            result[path] = entry.stat
        }
        return result
    }

    func id(_ index: MetadataIndex, _ path: String) -> ItemID? {
        index.lookup(container: 0, path.split(separator: "/").map(String.init))
    }

    /// Without dot names, the renames keep the lookup (``ListingLookup/noteFound(_:_:)``); with
    /// them, the directories they went to are looked up again (``ListingLookup/forget(_:)``).
    @Test(arguments: [(false, true), (true, true), (true, false)])
    func aLargeListingDiffedEndsAsAFreshIndexOfIt(renames: Bool, dotNames: Bool) throws {
        let (before, after, moved) = Self.listings(renames: renames, dotNames: dotNames)
        #expect(before.count >= 2 * ListingLookup.twoThreadsEntries, "large enough to be looked up on two threads")
        let tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([.listing(tree.container, [], CrawlListing(root: Self.root, entries: before))])
        // Every entry listed the same both times: its identity before.
        let listedBefore = Self.paths(before)
        let unchanged = Self.paths(after).filter { listedBefore[$0.key] == $0.value }.map(\.key)
        #expect(unchanged.count > before.count * 8 / 10)
        let identities = try unchanged.map { index.identity(try #require(id(index, $0))) }
        let movedFrom = try moved.map { try #require(id(index, $0.0)) }

        let (relookedBefore, droppedBefore) = (index.directoriesLookedUpAgain, index.listingLookupsDropped)
        let changes = index.apply([.listing(tree.container, [], CrawlListing(root: Self.root, entries: after))])
        // The renames kept the lookup: only the two directories they went to that list dot names
        // (names that may be placeholders') were looked up anew.
        #expect(index.listingLookupsDropped == droppedBefore)
        #expect(index.directoriesLookedUpAgain - relookedBefore == (renames && dotNames ? 2 : 0))

        let fresh = MetadataIndex()
        fresh.addContainer(tree.descriptor)
        _ = fresh.apply([.listing(tree.container, [], CrawlListing(root: Self.root, entries: after))])
        #expect(contents(index) == contents(fresh))
        // What was listed the same kept its identity (not removed and inserted again, which would
        // end in the same contents) and is not among the changes.
        for (path, identity) in zip(unchanged, identities) {
            let now = try #require(id(index, path))
            #expect(index.identity(now) == identity && changes.changes[now] == nil, "\(path) is untouched")
        }
        for ((_, to), was) in zip(moved, movedFrom) { #expect(id(index, to) == was, "\(to) keeps its id") }
        // What the second listing changed: 27 files gone from each of 8 directories and a file that
        // became a directory; 7 new files, and that directory with a file in it. Renamed entries
        // are updates (with their old path), not a removal and an insertion.
        let kinds = changes.changes.values.map(\.kind)
        #expect(kinds.filter { $0 == .removed }.count == 8 * 27 + 1)
        #expect(kinds.filter { $0 == .inserted }.count == 7 + 2)
        #expect(kinds.contains(.updated))
        #expect(id(index, "Documents/dir-9/file-4/inside") != nil)
    }

    /// The lookup's threads decide which found entries are unchanged (``ListingLookup/unchanged``)
    /// and the diff updates only the others: a second listing of a large tree, every status
    /// with its tags deferred (as a crawl lists them), is an update exactly where a status
    /// differs (a size, read tags that differ, a mode, an owner, a directory's times) and not
    /// where an item's tags were only deferred.
    @Test func onlyTheStatusesThatDifferAreUpdates() throws {
        var before = Self.listings(renames: false, dotNames: false).before
        #expect(before.count >= 2 * ListingLookup.twoThreadsEntries, "large enough to be looked up on two threads")
        for k in before.indices where before[k].stat.kind == .regular && k % 7 == 0 { before[k].stat.tags = ["Red"] }
        let tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([.listing(tree.container, [], CrawlListing(root: Self.root, entries: before))])

        var after = before, differs: [Int] = []
        for k in after.indices {
            after[k].stat.tags = []
            after[k].stat.tagsDeferred = true
            let regular = after[k].stat.kind == .regular
            switch k % 13 {
            case 1 where regular: after[k].stat.size += 1
            case 2 where regular:
                after[k].stat.tags = ["Blue"]
                after[k].stat.tagsDeferred = false
            case 3: after[k].stat.mode = 0o600
            case 4: after[k].stat.uid = 501
            case 5 where !regular && k > 0: after[k].stat.modified += 1
            default: continue
            }
            differs.append(k)
        }
        #expect(differs.count > 1_000)
        var paths: [String] = []
        for entry in before { paths.append(entry.parent == -1 ? entry.name : paths[Int(entry.parent)] + "/" + entry.name) }
        let ids = try paths.map { try #require(id(index, $0)) }
        let changes = index.apply([.listing(tree.container, [], CrawlListing(root: Self.root, entries: after))])
        #expect(changes.changes.values.allSatisfy { $0.kind == .updated })
        #expect(Set(changes.changes.keys) == Set(differs.map { ids[$0] }))
        // Tags deferred kept what the index had; tags read replaced it.
        for k in before.indices where k % 7 == 0 && before[k].stat.kind == .regular {
            #expect(index.stat(ids[k]).tags == (k % 13 == 2 ? ["Blue"] : ["Red"]), "\(paths[k])")
        }
    }
}
