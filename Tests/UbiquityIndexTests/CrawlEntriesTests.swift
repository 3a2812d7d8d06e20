import CUbiquitySystem
import Glibc
import Testing
@testable import UbiquityIndex

/// A listing's entries in segments (``CrawlEntries``): read back across segment boundaries, parts
/// that share segments yet keep value semantics, and subtrees appended with their parents moved.
@Suite("Crawl entries")
struct CrawlEntriesTests {
    static let size = CrawlEntries.segmentSize

    /// Entry `i` of a made-up listing: a name of varying length (1 to 200 bytes), a parent before it.
    static func entry(_ i: Int) -> CrawlListing.Entry {
        let name = "n\(i)-" + String(repeating: "é", count: i % 100)
        return CrawlListing.Entry(parent: i == 0 ? -1 : Int32(i / 3), name: name,
                                  stat: FileStat(kind: i % 2 == 0 ? .directory : .regular, size: Int64(i), inode: UInt64(i),
                                                 tags: i % 7 == 0 ? ["t\(i)"] : []))
    }

    static func expectEqual(_ entries: CrawlEntries, _ expected: [CrawlListing.Entry], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(entries.count == expected.count, sourceLocation: sourceLocation)
        for (i, want) in expected.enumerated() where i < entries.count {
            let got = entries[i]
            guard got.parent == want.parent, got.name == want.name, got.stat == want.stat,
                  entries.parent(i) == want.parent, entries.stat(i) == want.stat,
                  entries.nameCount(i) == want.name.utf8.count,
                  entries.withName(i, { Array($0) }) == Array(want.name.utf8) else {
                Issue.record("entry \(i): \(got) != \(want)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    @Test func entriesAcrossSegmentsReadBack() {
        let expected = (0..<3 * Self.size + 5).map(Self.entry)
        Self.expectEqual(CrawlEntries(expected), expected)
    }

    /// A small listing (a second walker's subtree of one directory) keeps its records below the
    /// daemon's fixed mmap threshold, which a whole segment's are above: each small listing
    /// mapped, faulted in and unmapped them (280 times in a crawl of 100k long names). The first
    /// segment grows instead, and its entries read back across each growth.
    @Test func aSmallListingReservesFewRecordsAndTheFirstSegmentGrows() {
        let threshold = Int(UBQ_MMAP_THRESHOLD)
        #expect(Self.size * MemoryLayout<CrawlEntries.Record>.stride >= threshold)
        let small = CrawlEntries((0..<100).map(Self.entry))
        #expect(small.recordBytesReserved < threshold)
        for count in [CrawlEntries.firstSegmentRecords, CrawlEntries.firstSegmentRecords + 1, Self.size - 1, Self.size + 1] {
            let expected = (0..<count).map(Self.entry)
            Self.expectEqual(CrawlEntries(expected), expected)
        }
    }

    /// This thread's page faults so far (minor: a page mapped on first write).
    static func minorFaults() -> Int? {
        var usage = rusage()
        guard getrusage(__rusage_who_t(UBQ_RUSAGE_THREAD), &usage) == 0 else { return nil }
        return usage.ru_minflt
    }

    /// A segment after the first is mapped whole when it is opened (`MADV_POPULATE_WRITE`), not
    /// one page fault per 4 KiB as its records and names are written: filling the rest of the
    /// second segment (600 KiB of names, 320 KiB of records) faults no page in.
    @Test func aSegmentAfterTheFirstIsMappedBeforeItIsFilled() throws {
        let name = String(repeating: "n", count: 150)
        var entries = CrawlEntries()
        func add(_ i: Int) {
            var bytes = name
            bytes.withUTF8 { entries.append(parent: -1, name: $0, stat: FileStat(kind: .regular, size: Int64(i))) }
        }
        for i in 0...Self.size { add(i) }                 // the second segment opened, with one entry
        let before = try #require(Self.minorFaults())
        for i in Self.size + 1..<2 * Self.size { add(i) }
        let faults = try #require(Self.minorFaults()) - before
        // Otherwise a fault per page written first: about 150 for the names of 4,095 entries alone.
        #expect(faults < 20, "\(faults) page faults while the second segment filled")
        #expect(entries.count == 2 * Self.size && entries.withName(2 * Self.size - 1) { Array($0) } == Array(name.utf8))
    }

    /// Nothing to map and nothing to trap on: no address, no length, a region too short for a
    /// whole page, a length that would wrap; a whole region is mapped (`mincore` says resident).
    @Test func populatingForWritingIsSafeOnAnyRegion() throws {
        let page = sysconf(Int32(_SC_PAGESIZE)), length = 8 * page
        let region = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(region != MAP_FAILED)
        defer { munmap(region, length) }
        var resident = [UInt8](repeating: 0, count: 8)
        #expect(mincore(region, length, &resident) == 0 && resident.allSatisfy { $0 & 1 == 0 }, "untouched: \(resident)")
        ubq_populate_for_writing(region + 1, length - 1)   // the whole pages inside: the last 7
        #expect(mincore(region, length, &resident) == 0 && resident.dropFirst().allSatisfy { $0 & 1 == 1 } && resident[0] & 1 == 0,
                "\(resident)")
        ubq_populate_for_writing(nil, length)
        ubq_populate_for_writing(region, 0)
        ubq_populate_for_writing(region + 1, page)
        ubq_populate_for_writing(UnsafeMutableRawPointer(bitPattern: UInt.max - 4096), 2 * page)
    }

    /// A part taken while the first segment is still growing shares it; the listing's appends
    /// that grow it after copy it, so the part keeps what it held and the listing gets the rest.
    @Test func aPartTakenBeforeTheFirstSegmentGrowsKeepsItsEntries() {
        let expected = (0..<3 * CrawlEntries.firstSegmentRecords).map(Self.entry)
        var listing = CrawlEntries(expected.prefix(CrawlEntries.firstSegmentRecords - 10))
        let part = listing.part(from: 5)
        for entry in expected.dropFirst(CrawlEntries.firstSegmentRecords - 10) { listing.append(entry) }
        Self.expectEqual(part, Array(expected[5..<CrawlEntries.firstSegmentRecords - 10]))
        Self.expectEqual(listing, expected)
        Self.expectEqual(listing.part(from: 7), Array(expected[7...]))
    }

    @Test(arguments: [0, 1, 17, size - 1, size, size + 1, 2 * size, 3 * size + 4])
    func partEqualsTheListingsEntriesAndKeepsThem(from position: Int) {
        let expected = (0..<3 * Self.size + 5).map(Self.entry)
        var entries = CrawlEntries(expected)
        let part = entries.part(from: position)
        Self.expectEqual(part, Array(expected[position...]))
        // Later appends and status changes to the listing leave the part as it was taken.
        for i in expected.count..<expected.count + Self.size + 3 { entries.append(Self.entry(i)) }
        entries.setStat(expected.count - 1, FileStat(kind: .symlink, size: 99))
        entries.setStat(position, FileStat(kind: .symlink, size: 98))
        Self.expectEqual(part, Array(expected[position...]))
        #expect(entries.stat(position) == FileStat(kind: .symlink, size: 98))
        // A part grows on its own, the listing unchanged by it.
        var grown = part
        grown.append(Self.entry(5))
        grown.setStat(0, FileStat(kind: .other))
        Self.expectEqual(grown, [CrawlListing.Entry(parent: expected[position].parent, name: expected[position].name,
                                                    stat: FileStat(kind: .other))]
                         + expected[(position + 1)...] + [Self.entry(5)])
        #expect(entries.stat(position) == FileStat(kind: .symlink, size: 98))
        #expect(entries.count == expected.count + Self.size + 3)
    }

    @Test func partPastTheEndIsEmpty() {
        let entries = CrawlEntries((0..<10).map(Self.entry))
        #expect(entries.part(from: 10).isEmpty)
        #expect(CrawlEntries().part(from: 0).isEmpty)
    }

    @Test(arguments: [0, 3, size - 2])
    func appendedSubtreeHasItsParentsMoved(ours: Int) {
        let mine = (0..<ours).map(Self.entry)
        let theirs = (0..<2 * Self.size + 7).map(Self.entry)
        var entries = CrawlEntries(mine)
        // A part of another listing, mid-segment, as a subtree: its own positions start at 0.
        let other = CrawlEntries((0..<5).map(Self.entry) + theirs).part(from: 5)
        let under: Int32 = ours > 0 ? Int32(ours - 1) : -1
        entries.append(contentsOf: other, under: under)
        let moved = theirs.map { entry in
            CrawlListing.Entry(parent: entry.parent < 0 ? under : Int32(ours) + entry.parent, name: entry.name, stat: entry.stat)
        }
        Self.expectEqual(entries, mine + moved)
        entries.append(contentsOf: CrawlEntries(), under: 0)
        #expect(entries.count == ours + theirs.count)
    }
}
