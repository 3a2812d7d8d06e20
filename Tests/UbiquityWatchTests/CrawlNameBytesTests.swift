import Glibc
import Testing
import UbiquityIndex
import UbiquityTesting
@testable import UbiquityWatch

/// Names go from `readdir` into the listing's byte buffer (``CrawlEntries``) without a `String`:
/// a real crawl of a real directory of odd names lists each one's exact bytes, and skips a name
/// that is not UTF-8 as it always did.
@Suite("Crawl names as bytes")
struct CrawlNameBytesTests {
    /// Names the crawl must list byte for byte.
    static let listed: [String] = [
        "plain.txt",
        "café-ü.txt",                                   // 2-byte sequences
        "日本語のファイル名.txt",                           // 3-byte
        "📁 folder.txt",                                 // 4-byte
        "abcdefgé", "abcdefghé", "abcdefghijklmnopé",    // the first non-ASCII byte at a word's edge
        String(repeating: "a", count: 255),              // the longest name
        String(repeating: "é", count: 127) + "a",        // 255 bytes, none ASCII but the last
        "line\nbreak", "tab\there", "\u{7F}del",
    ]

    /// Names that are not UTF-8 (each after `Item_`): overlong, surrogate, cut short, above U+10FFFF, a stray byte.
    static let undecodable: [[UInt8]] = [
        [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xFF],
        Array("abcdefgh".utf8) + [0x80],
    ]

    static func create(_ path: [UInt8]) -> Bool {
        let fd = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_CREAT | O_WRONLY, 0o644) }
        }
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    static func remove(_ path: [UInt8]) {
        _ = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { unlink($0) }
        }
    }

    @Test func oddNamesAreListedByteForByteAndUndecodableOnesSkipped() throws {
        let base = try FS.temporaryDirectory()
        let root = base + "/root"
        try FS.mkdirs(root + "/dïr/sub")
        let undecodablePaths = Self.undecodable.map { Array((root + "/dïr/Item_").utf8) + $0 }
        defer {
            for path in undecodablePaths { Self.remove(path) }
            try? FS.removeTree(base)
        }
        for name in Self.listed {
            try FS.write(root + "/" + name, name)
            try FS.write(root + "/dïr/sub/" + name, "")
        }
        for path in undecodablePaths { #expect(Self.create(path)) }

        let result = try Crawler().crawl(root: root)
        let expected = Set(Self.listed + ["dïr", "dïr/sub"] + Self.listed.map { "dïr/sub/" + $0 })
        #expect(Set(listingPaths(result.listing)) == expected)
        #expect(result.listing.entries.count == expected.count)
        // Each name's own bytes, lent without a String, are the name's UTF-8.
        let entries = result.listing.entries
        let byName = Set(entries.indices.map { i in entries.withName(i) { Array($0) } })
        #expect(byName == Set((Self.listed + ["dïr", "sub"]).map { Array($0.utf8) }))
        for i in entries.indices {
            let parent = Int(entries.parent(i))
            #expect(parent < i, "a parent comes before its children")
            if parent >= 0 { #expect(entries.stat(parent).kind == .directory) }
        }
        // The undecodable ones: skipped, each named with replacement characters, as before.
        #expect(result.skipped.count == Self.undecodable.count, "\(result.skipped)")
        #expect(result.skipped.allSatisfy { $0.call == "name" && $0.errno == EILSEQ && $0.reason == "the name is not valid UTF-8" })
        let skippedPaths = Set(result.skipped.map { $0.path.joined(separator: "/") })
        #expect(skippedPaths == Set(Self.undecodable.map { "dïr/Item_" + String(decoding: $0, as: UTF8.self) }))
    }

    @Test func aPartHoldsItsEntriesNamesAndTheListingsParentPositions() throws {
        let base = try FS.temporaryDirectory()
        defer { try? FS.removeTree(base) }
        try FS.mkdirs(base + "/root/a/b")
        for i in 0..<40 { try FS.write(base + "/root/a/b/\(i)-" + String(repeating: "n", count: i * 6), "") }
        let entries = try Crawler().crawl(root: base + "/root").listing.entries
        #expect(entries.count == 42)
        for first in [0, 1, 2, 17, 41, 42] {
            let part = entries.part(from: first)
            #expect(part.count == entries.count - first)
            for i in part.indices {
                #expect(part.parent(i) == entries.parent(first + i))
                #expect(part.withName(i) { Array($0) } == entries.withName(first + i) { Array($0) })
                #expect(part[i].name == entries[first + i].name)
            }
        }
    }
}
