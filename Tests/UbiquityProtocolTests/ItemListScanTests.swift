import Testing
@testable import UbiquityProtocol
import UbiquityTesting
import UbiquityFuzzing

/// ``ItemListScan``: a line whose first list was taken read by read, in reads cut anywhere, reads
/// (without those items, and with them beside it) to the same message as the line read whole — or
/// fails with the same error.
@Suite("Items taken read by read as their line arrives", .ownThreads)
struct ItemListScanTests {
    typealias Read = ItemListScanCheck.Read

    static func taken(_ line: [UInt8], reads: (Int) -> Int) -> (bytes: [UInt8], listed: ListedItems?, scan: ItemListScan) {
        let (bytes, listed, scan, _) = ItemListScanCheck.taken(line, reads: reads)
        return (bytes, listed, scan)
    }

    static func taken(_ line: [UInt8], _ random: inout SplitMix64) -> (bytes: [UInt8], listed: ListedItems?, scan: ItemListScan) {
        var draws: [Int] = (0..<64).map { _ in random.pick([1, 2, 7, 64, 300, 4_096]) }
        draws.append(contentsOf: draws)
        return taken(line) { draws[$0 % draws.count] }
    }

    static func message(_ bytes: [UInt8], listed: ListedItems? = nil) -> Result<ServerMessage, ProtocolError> {
        ItemListScanCheck.message(bytes, listed: listed)
    }

    @Test("The daemon's lines: the same messages, their items kept as bytes alike, most of them taken early")
    func daemonLines() throws {
        var random = SplitMix64(seed: 20_261_124)
        var takenEarly = 0, all = 0
        for seed in UInt64(0)..<400 {
            for (label, line, _) in ResultEncoderPropertyTests.pairs(seed: seed) {
                let bytes = Array(line.dropLast())
                let (rest, listed, scan) = Self.taken(bytes, &random)
                let read = try Self.message(rest, listed: listed).get()
                let whole = try Self.message(bytes).get()
                #expect(read == whole, "seed \(seed), \(label)")
                let items = EncodedItemsTests.items(read)
                #expect(items.map(\.keptAsBytes) == EncodedItemsTests.items(whole).map(\.keptAsBytes), "seed \(seed), \(label)")
                takenEarly += scan.count
                all += items.count
            }
        }
        // Lists after the first (an update's `changed`, `removed`) and items with fractional
        // numbers (1.0 reads as 1), and what follows them, are left to the line's reading.
        #expect(takenEarly > all / 4 && takenEarly < all, "taken early \(takenEarly) of \(all)")
    }

    @Test("Mutated lines in reads: the same message as read whole, or the same error")
    func mutatedLines() {
        var random = SplitMix64(seed: 20_261_126)
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-tfnul/abu"#.utf8) + [0x00, 0x80, 0xA8, 0xC3, 0xE2, 0xFF]
        var failures = 0, takenEarly = 0
        for seed in UInt64(0)..<1_500 {
            let (_, line, _) = ResultEncoderPropertyTests.pairs(seed: seed)[random.int(0...4)]
            var bytes = Array(line.dropLast())
            JSONScannerTests.mutate(&bytes, alphabet: alphabet, &random)
            let (rest, listed, scan) = Self.taken(bytes, &random)
            takenEarly += scan.count
            switch (Self.message(rest, listed: listed), Self.message(bytes)) {
            case (.success(let a), .success(let b)): #expect(a == b, "seed \(seed)")
            case (.failure(let a), .failure(let b)):
                failures += 1
                #expect(a.message == b.message, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            case (let a, let b): Issue.record("seed \(seed): \(a) against \(b): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(failures > 500 && takenEarly > 1_000, "\(failures) refused, \(takenEarly) items taken early")
    }

    static let item = #"{"attributes":{"kMDItemFSSize":12},"path":"/c/a"}"#
    static let head = #"{"clock":"c","count":3,"event":"query.gatheringFinished","query":1,"results":["#

    @Test("An item is taken only with the separator after it; one cut by a read is held over and kept whole")
    func itemsCutByReads() throws {
        let bytes = Array((Self.head + [Self.item, Self.item, Self.item].joined(separator: ",") + "]}").utf8)
        let list = Self.head.utf8.count, length = Self.item.utf8.count
        // Reads cut inside the first item's digits, just before its comma, after it, and inside the last.
        for (first, kept) in [(32, 0), (length, 0), (length + 1, 1), (2 * length + 10, 2)] {
            var scan = ItemListScan()
            let one = Read(bytes[list..<(list + first)]), two = Read(bytes[(list + first)...])
            #expect(scan.take(UnsafeRawBufferPointer(one.bytes), keptBy: one) == nil)
            #expect(scan.count == kept, "first read of \(first) bytes")
            #expect(scan.carriedBytes == first - kept * (length + 1), "first read of \(first) bytes")
            let end = scan.take(UnsafeRawBufferPointer(two.bytes), keptBy: two)
            // The rest starts at the list's `]`, in the second read.
            #expect(end == .init(prefix: [], index: bytes.count - 2 - (list + first)), "first read of \(first) bytes")
            #expect(scan.count == 3 && scan.carriedBytes == 0)
            let listed = ListedItems(listStart: list - 1, pieces: scan.takePieces(), count: scan.count)
            guard case .event(.gatheringFinished(_, .results(let results, _), _, _)) = try Self.message(Array(bytes[..<list]) + Array("]}".utf8), listed: listed).get() else {
                Issue.record("not an answer")
                continue
            }
            #expect(results.map(\.path) == ["/c/a", "/c/a", "/c/a"])
            #expect(results.allSatisfy { $0.keptAsBytes && $0.attributes == ["kMDItemFSSize": .integer(12)] })
        }
    }

    @Test("Whitespace, or an item not written as the daemon writes it, ends the scan there: the rest starts at the comma before it")
    func endsAtTheFirstStrangeItem() throws {
        let plain = #"{"attributes":{},"path":"/c/a"}"#
        let spaced = #"{ "attributes":{},"path":"/c/b"}"#
        let list = [plain, spaced] + Array(repeating: plain, count: 40)
        let line = Array(#"{"count":\#(list.count),"event":"query.reset","query":1,"results":[\#(list.joined(separator: ","))]}"#.utf8)
        let (rest, listed, scan) = Self.taken(line) { _ in line.count }
        #expect(scan.count == 1)
        let listStart = Array(#"{"count":42,"event":"query.reset","query":1,"results":"#.utf8).count
        #expect(rest == Array(line[...listStart]) + Array(("," + list.dropFirst().joined(separator: ",") + "]}").utf8))
        guard case .event(.reset(_, let results, _)) = try Self.message(rest, listed: listed).get() else {
            Issue.record("not a reset")
            return
        }
        #expect(results.map(\.path) == ["/c/a", "/c/b"] + Array(repeating: "/c/a", count: list.count - 2))
        #expect(results.map(\.keptAsBytes) == [true, false] + Array(repeating: true, count: list.count - 2))

        // Cut close to it, the scan cannot tell it from an item cut short, and holds it over; with
        // a few more bytes it ends there.
        var waiting = ItemListScan()
        let body = Array(list.prefix(3).joined(separator: ",").utf8)
        let spacedAt = plain.utf8.count + 1
        let one = Read(body[..<(spacedAt + 5)]), two = Read(body[(spacedAt + 5)...])
        #expect(waiting.take(UnsafeRawBufferPointer(one.bytes), keptBy: one) == nil)
        #expect(waiting.count == 1 && waiting.carriedBytes == 5)
        let end = waiting.take(UnsafeRawBufferPointer(two.bytes), keptBy: two)
        #expect(end == .init(prefix: Array(",".utf8) + Array(body[spacedAt..<(spacedAt + 5)]), index: 0))
    }

    @Test("Repeated keys: the first counts, and the items taken are used only for the list the message reads")
    func repeatedKeys() throws {
        let item = #"{"attributes":{},"path":"/c/a"}"#, other = #"{"attributes":{},"path":"/c/b"}"#
        for text in [#"{"count":1,"event":"query.reset","query":1,"results":5,"results":[\#(item)]}"#,
                     #"{"count":1,"event":"query.reset","query":1,"results":[\#(item)],"results":[\#(other)]}"#,
                     #"{"added":5,"changed":[\#(item)],"clock":"c","event":"query.update","query":1,"removed":[]}"#,
                     #"{"added":[\#(item),\#(other)],"changed":[\#(other)],"clock":"c","event":"query.update","query":1,"removed":[\#(item)]}"#,
                     #"{"event":"query.gatheringFinished","event":"query.reset","query":1,"query":2,"results":[\#(item)],"clock":"c","count":1}"#] {
            let bytes = Array(text.utf8)
            let (rest, listed, _) = Self.taken(bytes) { _ in 7 }
            switch (Self.message(rest, listed: listed), Self.message(bytes)) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(text)")
            case (.failure(let a), .failure(let b)): #expect(a.message == b.message, "\(text)")
            case (let a, let b): Issue.record("\(text): \(a) against \(b)")
            }
        }
    }

    @Test("The head says whose gathered results a list is, with the first of repeated keys; none before the list has arrived")
    func heads() throws {
        func head(_ text: String) -> ListHead? { Array(text.utf8).withUnsafeBytes { ItemListScan.head(of: $0) } }
        #expect(head(Self.head)?.gatheredResultsOf == 1)
        #expect(head(Self.head)?.listStart == Self.head.utf8.count - 1)
        #expect(head(#"{"clock":"c","count":3,"event":"query.gatheringFinished","query":1,"res"#) == nil)
        #expect(head(#"{"count":3,"event":"query.reset","query":1,"results":["#)?.gatheredResultsOf == nil)
        #expect(head(#"{"added":[],"event":"query.gatheringFinished","query":1,"results":["#)?.key == "added")
        #expect(head(#"{"event":"query.gatheringFinished","event":"query.reset","query":4,"results":["#)?.gatheredResultsOf == 4)
        #expect(head(#"{"event":"query.reset","event":"query.gatheringFinished","query":4,"results":["#)?.gatheredResultsOf == nil)
        #expect(head(#"{"event":"query.gatheringFinished","query":"4","results":["#)?.gatheredResultsOf == nil)
        #expect(head(#"{"event":"query.gatheringFinished","query":4,"results":5}"#) == nil)
    }

    @Test("An empty list ends the scan at once; a line that ends inside its list ends it where it is")
    func emptyAndUnfinishedLists() throws {
        var empty = ItemListScan()
        let closing = Read(ArraySlice("]}".utf8))
        #expect(empty.take(UnsafeRawBufferPointer(closing.bytes), keptBy: closing) == .init(prefix: [], index: 0))
        #expect(empty.count == 0)

        let cut = Array((Self.head + Self.item + "," + Self.item.prefix(20)).utf8)
        let (rest, listed, scan) = Self.taken(cut) { _ in 3 }
        #expect(scan.count == 1 && listed?.count == 1)
        #expect(rest == Array((Self.head + "," + Self.item.prefix(20)).utf8))
        switch (Self.message(rest, listed: listed), Self.message(cut)) {
        case (.failure(let a), .failure(let b)): #expect(a.message == b.message)
        case (let a, let b): Issue.record("\(a) against \(b)")
        }
    }
}
