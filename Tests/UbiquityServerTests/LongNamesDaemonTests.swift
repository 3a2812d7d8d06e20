import Foundation
import Glibc
import Testing
import UbiquityTesting

/// Long names of many scripts through the real daemon: enough of them (over 64 KiB) that the
/// index trains its name codec and stores the later ones compressed. Every answer names every file
/// as the file system does — after the crawl, after a create and a rename seen as events (child
/// lookups over compressed names), and after a restart from the saved index (names written
/// decoded, compressed again when read back).
@Suite(.ownThreads) struct LongNamesDaemonTests {
    typealias Since = SinceQueryDaemonTests

    /// `Item_<n>-` and 100–180 bytes of Latin, Greek, Cyrillic, CJK and emoji.
    static func longName(_ n: Int, _ random: inout SplitMix64) -> String {
        let alphabet = Array("abcdefXYZ0123456789-éüßñαβλжщы日本語文件名🍎🥕🧀").map(String.init)
        var name = "Item_\(n)-"
        let target = 100 + Int(random.next() % 81)
        while name.utf8.count < target { name += alphabet[Int(random.next() % UInt64(alphabet.count))] }
        return name
    }

    static func itemNames(_ socket: String) throws -> [String] {
        let gathered = try Since.gather(socket)
        #expect(gathered["error"] == nil, "\(gathered)")
        return Since.names(gathered["results"])
    }

    static func onDisk(_ documents: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: documents).filter { $0.hasPrefix("Item_") }.sorted()
    }

    @Test func longNamesOfManyScriptsAnswerAsTheFileSystemNamesThem() async throws {
        var random = SplitMix64(seed: 37)
        let names = (0..<800).map { Self.longName($0, &random) }
        #expect(names.reduce(0) { $0 + $1.utf8.count } > 96 * 1024)
        let first = try TestDaemon { root in
            let documents = root + "/com.example.grocery/Documents"
            for name in names { #expect(FileManager.default.createFile(atPath: documents + "/" + name, contents: nil)) }
        }
        let documents = first.documents()
        #expect(try Self.itemNames(first.socket) == names.sorted())

        // Events: a new long name, a rename of one stored compressed (found by its name among
        // compressed ones) and a removal.
        let added = Self.longName(900, &random)
        try first.place(added, contents: "new")
        #expect(rename(documents + "/" + names[700], documents + "/" + names[700] + "-renamed") == 0)
        #expect(unlink(documents + "/" + names[750]) == 0)
        try first.place("Item_marker", contents: "m")
        let deadline = Date().addingTimeInterval(20)
        var seen = try Self.itemNames(first.socket)
        while !seen.contains("Item_marker") && Date() < deadline { seen = try Self.itemNames(first.socket) }
        #expect(seen == (try Self.onDisk(documents)))
        #expect(seen.contains(added) && seen.contains(names[700] + "-renamed") && !seen.contains(names[750]))

        // The saved index read back.
        try first.waitForLog("index saved")
        #expect(first.stop() == 0)
        let restarted = try SavedIndexDaemonTests.restart(first)
        defer { _ = restarted.stop() }
        #expect(try Self.itemNames(first.socket) == (try Self.onDisk(documents)))
    }
}
