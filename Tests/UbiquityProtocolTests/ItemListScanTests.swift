import Testing
import UbiquityPredicate
@testable import UbiquityProtocol
import UbiquityTesting

/// ``ItemListScan``: a line whose items were checked while it arrived, in pieces cut anywhere,
/// reads to the same message as the line read whole — or fails with the same error.
@Suite("Items checked while their line arrives", .ownThreads)
struct ItemListScanTests {
    /// The scan after `bytes` arrived in random pieces: advanced over each prefix, as
    /// ServerLineDecoder does while the newline has not come.
    static func scan(_ bytes: [UInt8], _ random: inout SplitMix64) -> ItemListScan {
        var scan = ItemListScan()
        var received = 0
        while received < bytes.count {
            received = min(bytes.count, received + random.pick([1, 2, 7, 64, 300, 4_096]))
            bytes.withUnsafeBufferPointer { scan.advance(over: UnsafeBufferPointer(rebasing: $0[..<received])) }
        }
        return scan
    }

    static func message(_ bytes: [UInt8], itemScan: ItemListScan?) -> Result<ServerMessage, ProtocolError> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ProtocolError) in try ServerMessage(line: buffer, itemScan: itemScan) }
        }
    }

    @Test("The daemon's lines: the same messages, their items kept as bytes alike, most of them checked early")
    func daemonLines() throws {
        var random = SplitMix64(seed: 20_261_124)
        var checkedEarly = 0, all = 0
        for seed in UInt64(0)..<400 {
            for (label, line, _) in ResultEncoderPropertyTests.pairs(seed: seed) {
                let bytes = Array(line.dropLast())
                let scan = Self.scan(bytes, &random)
                let scanned = try Self.message(bytes, itemScan: scan).get()
                let whole = try Self.message(bytes, itemScan: nil).get()
                #expect(scanned == whole, "seed \(seed), \(label)")
                let items = EncodedItemsTests.items(scanned)
                #expect(items.map(\.keptAsBytes) == EncodedItemsTests.items(whole).map(\.keptAsBytes), "seed \(seed), \(label)")
                checkedEarly += scan.starts.count
                all += items.count
            }
        }
        // Lists after the first (an update's `changed`, `removed`) and items with fractional
        // numbers (1.0 reads as 1), and what follows them, are left to the whole line's reading.
        #expect(checkedEarly > all / 4 && checkedEarly < all, "checked early \(checkedEarly) of \(all)")
    }

    @Test("Mutated lines in pieces: the same message as read whole, or the same error")
    func mutatedLines() {
        var random = SplitMix64(seed: 20_261_126)
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-tfnul/abu"#.utf8) + [0x00, 0x80, 0xA8, 0xC3, 0xE2, 0xFF]
        var failures = 0, checkedEarly = 0
        for seed in UInt64(0)..<1_500 {
            let (_, line, _) = ResultEncoderPropertyTests.pairs(seed: seed)[random.int(0...4)]
            var bytes = Array(line.dropLast())
            JSONScannerTests.mutate(&bytes, alphabet: alphabet, &random)
            let scan = Self.scan(bytes, &random)
            checkedEarly += scan.starts.count
            switch (Self.message(bytes, itemScan: scan), Self.message(bytes, itemScan: nil)) {
            case (.success(let a), .success(let b)): #expect(a == b, "seed \(seed)")
            case (.failure(let a), .failure(let b)):
                failures += 1
                #expect(a.message == b.message, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            case (let a, let b): Issue.record("seed \(seed): \(a) against \(b): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(failures > 500 && checkedEarly > 1_000, "\(failures) refused, \(checkedEarly) items checked early")
    }

    @Test("An item is taken only with the separator after it; a list cut anywhere resumes where the scan stopped")
    func resumesAfterTheLastWholeItem() throws {
        let item = #"{"attributes":{"kMDItemFSSize":12},"path":"/c/a"}"#
        let head = #"{"clock":"c","count":3,"event":"query.gatheringFinished","query":1,"results":["#
        let bytes = Array((head + [item, item, item].joined(separator: ",") + "]}").utf8)
        let first = head.utf8.count, second = first + item.utf8.count + 1
        // Cut inside the size's digits, then just before the first item's comma, then after it.
        for (received, accepted) in [(first + 32, 0), (second - 1, 0), (second, 1), (bytes.count - 2, 2), (bytes.count - 1, 3)] {
            var scan = ItemListScan()
            bytes.withUnsafeBufferPointer { scan.advance(over: UnsafeBufferPointer(rebasing: $0[..<received])) }
            #expect(scan.starts.count == accepted, "after \(received) bytes")
            #expect(scan.listStart == first - 1)
            guard case .event(.gatheringFinished(_, .results(let results, _), _)) = try Self.message(bytes, itemScan: scan).get() else {
                Issue.record("not an answer")
                continue
            }
            #expect(results.map(\.path) == ["/c/a", "/c/a", "/c/a"])
            #expect(results.allSatisfy { $0.keptAsBytes && $0.attributes == ["kMDItemFSSize": .integer(12)] })
        }
    }

    @Test("Whitespace, or an item not written as the daemon writes it, stops the scan there")
    func stopsAtTheFirstStrangeItem() throws {
        let plain = #"{"attributes":{},"path":"/c/a"}"#
        let spaced = #"{ "attributes":{},"path":"/c/b"}"#
        // Enough after it that the scan knows it is not merely cut short.
        let list = [plain, spaced] + Array(repeating: plain, count: ItemListScan.lookahead / plain.utf8.count + 1)
        let line = Array(#"{"count":\#(list.count),"event":"query.reset","query":1,"results":[\#(list.joined(separator: ","))]}"#.utf8)
        var scan = ItemListScan()
        line.withUnsafeBufferPointer { scan.advance(over: $0) }
        #expect(scan.starts.count == 1 && scan.stopped && !scan.finished)
        guard case .event(.reset(_, let results, _)) = try Self.message(line, itemScan: scan).get() else {
            Issue.record("not a reset")
            return
        }
        #expect(results.map(\.path) == ["/c/a", "/c/b"] + Array(repeating: "/c/a", count: list.count - 2))
        #expect(results.map(\.keptAsBytes) == [true, false] + Array(repeating: true, count: list.count - 2))

        // Cut close to it, the scan cannot tell it from an item cut short, and waits; a few more
        // bytes, and it stops there.
        let short = Array(#"{"count":3,"event":"query.reset","query":1,"results":[\#(plain),\#(spaced),\#(plain)]}"#.utf8)
        let spacedAt = short.count - 2 - plain.utf8.count - 1 - spaced.utf8.count
        var waiting = ItemListScan()
        for (received, stops) in [(spacedAt + 5, false), (spacedAt + CanonicalItem.lookahead, true)] {
            short.withUnsafeBufferPointer { waiting.advance(over: UnsafeBufferPointer(rebasing: $0[..<received])) }
            #expect(waiting.starts.count == 1 && waiting.stopped == stops && waiting.next == spacedAt, "after \(received) bytes")
        }
        guard case .event(.reset(_, let three, _)) = try Self.message(short, itemScan: waiting).get() else {
            Issue.record("not a reset")
            return
        }
        #expect(three.map(\.path) == ["/c/a", "/c/b", "/c/a"])
    }

    @Test("Repeated keys: the first counts, and the scan is used only for the list the message reads")
    func repeatedKeys() throws {
        let item = #"{"attributes":{},"path":"/c/a"}"#, other = #"{"attributes":{},"path":"/c/b"}"#
        for text in [#"{"count":1,"event":"query.reset","query":1,"results":5,"results":[\#(item)]}"#,
                     #"{"count":1,"event":"query.reset","query":1,"results":[\#(item)],"results":[\#(other)]}"#,
                     #"{"added":5,"changed":[\#(item)],"clock":"c","event":"query.update","query":1,"removed":[]}"#,
                     #"{"added":[\#(item),\#(other)],"changed":[\#(other)],"clock":"c","event":"query.update","query":1,"removed":[\#(item)]}"#] {
            let bytes = Array(text.utf8)
            var scan = ItemListScan()
            bytes.withUnsafeBufferPointer { scan.advance(over: $0) }
            let scanned = Self.message(bytes, itemScan: scan), whole = Self.message(bytes, itemScan: nil)
            switch (scanned, whole) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(text)")
            case (.failure(let a), .failure(let b)): #expect(a.message == b.message, "\(text)")
            case (let a, let b): Issue.record("\(text): \(a) against \(b)")
            }
        }
    }

    @Test("A scan of other bytes is not used: its offsets do not fit the line")
    func aScanOfAnotherLineIsIgnored() throws {
        let item = #"{"attributes":{},"path":"/c/a"}"#
        let long = Array(#"{"count":3,"event":"query.reset","query":1,"results":[\#(item),\#(item),\#(item)]}"#.utf8)
        let short = Array(#"{"count":1,"event":"query.reset","query":1,"results":[\#(item)]}"#.utf8)
        var scan = ItemListScan()
        long.withUnsafeBufferPointer { scan.advance(over: $0) }
        #expect(scan.finished && scan.next > short.count)
        guard case .event(.reset(_, let results, _)) = try Self.message(short, itemScan: scan).get() else {
            Issue.record("not a reset")
            return
        }
        #expect(results.map(\.path) == ["/c/a"])
    }

    @Test("Members before the list longer than the lookahead stop the scan; an empty list is read whole")
    func longMembersAndEmptyLists() throws {
        let long = String(repeating: "x", count: ItemListScan.lookahead)
        let line = Array(#"{"clock":"\#(long)","count":1,"event":"query.reset","query":1,"results":[{"attributes":{},"path":"/c/a"}]}"#.utf8)
        var scan = ItemListScan()
        line.withUnsafeBufferPointer { scan.advance(over: UnsafeBufferPointer(rebasing: $0[..<(ItemListScan.lookahead + 1)])) }
        #expect(scan.stopped && scan.listStart == nil)
        guard case .event(.reset(_, let results, _)) = try Self.message(line, itemScan: scan).get() else {
            Issue.record("not a reset")
            return
        }
        #expect(results.map(\.path) == ["/c/a"])

        let empty = Array(#"{"count":0,"event":"query.reset","query":1,"results":[]}"#.utf8)
        var emptyScan = ItemListScan()
        empty.withUnsafeBufferPointer { emptyScan.advance(over: $0) }
        #expect(emptyScan.finished && emptyScan.starts.isEmpty)
        guard case .event(.reset(_, let none, _)) = try Self.message(empty, itemScan: emptyScan).get() else {
            Issue.record("not a reset")
            return
        }
        #expect(none.isEmpty)
    }
}
