import Foundation
import Testing
import UbiquityJSON
import UbiquityPredicate
@testable import UbiquityProtocol
import UbiquityTesting

/// Result items kept as their bytes on the wire (``EncodedItems``): they read as the items the
/// general path reads, write as `JSONLine` writes those, and keep the bytes they refer to.
@Suite("Result items kept as bytes", .ownThreads)
struct EncodedItemsTests {
    static func message(_ bytes: [UInt8]) throws(ProtocolError) -> ServerMessage {
        try bytes.withUnsafeBufferPointer { buffer throws(ProtocolError) in try ServerMessage(line: buffer) }
    }

    /// Every item of every list of an event.
    static func items(_ message: ServerMessage) -> [WireItem] {
        guard case .event(let event) = message else { return [] }
        switch event {
        case .gatheringFinished(_, .results(let results, _), _, _), .reset(_, let results, _): return results
        case .gatheringFinished(_, .changes(_, let added, let changed, let removed, _), _, _),
             .update(_, let added, let changed, let removed, _): return added + changed + removed
        default: return []
        }
    }

    static func written(_ item: WireItem) -> [UInt8] {
        var bytes: [UInt8] = []
        item.writeJSON(to: &bytes)
        return bytes
    }

    /// A value the daemon's attributes can hold: no fractional numbers (no attribute is one).
    static func attributeValue(_ value: Value) -> Value {
        switch value {
        case .double(let d): .integer(Int64(d.isFinite ? max(-1e18, min(1e18, d)).rounded(.towardZero) : 0))
        case .list(let values): .list(values.map(attributeValue))
        default: value
        }
    }

    @Test("Items of the daemon's lines read as the general path reads them and write as JSONLine writes them")
    func daemonLines() throws {
        var kept = 0, all = 0
        for seed in UInt64(0)..<400 {
            for (label, line, _) in ResultEncoderPropertyTests.pairs(seed: seed) {
                let bytes = Array(line.dropLast())
                let scanned = Self.items(try Self.message(bytes))
                let general = Self.items(try ServerMessage(json: JSONLine.decode(bytes)))
                #expect(scanned == general, "seed \(seed), \(label)")
                for item in scanned {
                    #expect(Self.written(item) == Array(JSONLine.encode(item.json).utf8), "seed \(seed), \(label)")
                    all += 1
                    if item.keptAsBytes { kept += 1 }
                }
            }
        }
        // Those with fractional numbers (1.0 reads as 1) are read at once; the others are kept.
        #expect(kept > all / 2 && kept < all, "kept \(kept) of \(all)")
    }

    @Test("Every item with the values attributes hold is kept as bytes")
    func attributeValuesAreKept() throws {
        var random = SplitMix64(seed: 99)
        for _ in 0..<300 {
            let attributes = (0..<random.int(0...6)).map { _ in random.pick(Attribute.all) }
            let items = (0..<random.int(1...6)).map { _ in
                var item = ResultEncoderPropertyTests.item(&random, attributes: attributes)
                item.values = item.values.mapValues(Self.attributeValue)
                return item
            }
            let line = ResultEncoderPropertyTests.encoder(attributes).gatheringFinished(query: 1, results: items, fresh: nil, clock: "c")
            let scanned = Self.items(try Self.message(Array(line.dropLast())))
            #expect(scanned.count == items.count)
            #expect(scanned.allSatisfy { $0.keptAsBytes }, "\(String(decoding: line, as: UTF8.self))")
            #expect(scanned == items.map(ResultEncoderPropertyTests.wire))
        }
    }

    @Test("Mutated lines: the same message as the general reader's, or the same error")
    func mutatedLines() {
        var random = SplitMix64(seed: 20_261_125)
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-tfnul/abu"#.utf8) + [0x00, 0x0A, 0x80, 0xA8, 0xC3, 0xE2, 0xFF]
        var failures = 0
        for seed in UInt64(0)..<1_500 {
            let (_, line, _) = ResultEncoderPropertyTests.pairs(seed: seed)[random.int(0...4)]
            var bytes = Array(line.dropLast())
            JSONScannerTests.mutate(&bytes, alphabet: alphabet, &random)
            let scanned = Result { () throws(ProtocolError) in try Self.message(bytes) }
            // The general reader: the whole line as plain JSON values, then the message.
            let general = bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(ProtocolError) in
                    var scanner = JSONScanner(buffer)
                    return try ServerMessage(json: try scanner.document())
                }
            }
            switch (scanned, general) {
            case (.success(let a), .success(let b)): #expect(a == b, "seed \(seed)")
            case (.failure(let a), .failure(let b)):
                failures += 1
                #expect(a.message == b.message, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            default: Issue.record("seed \(seed): \(scanned) against \(general): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(failures > 500, "\(failures) refused")
    }

    @Test("Items kept and items read at once stay in their order")
    func mixedList() throws {
        let kept = #"{"attributes":{"kMDItemFSSize":3},"path":"/c/a"}"#
        let spaced = #"{ "attributes":{"kMDItemFSSize":4},"path":"/c/b"}"#
        let fraction = #"{"attributes":{"kMDItemFSSize":5.0},"path":"/c/c"}"#
        let renamed = #"{"attributes":{},"oldPath":"/c/x","path":"/c/d"}"#
        let escaped = #"{"attributes":{},"path":"/c/\u00e9"}"#
        let list = [kept, spaced, fraction, renamed, escaped, kept].joined(separator: ",")
        let bytes = Array(#"{"clock":"c","count":6,"event":"query.gatheringFinished","query":1,"results":[\#(list)]}"#.utf8)
        let items = Self.items(try Self.message(bytes))
        #expect(items.map(\.keptAsBytes) == [true, false, false, true, false, true])
        #expect(items == Self.items(try ServerMessage(json: JSONLine.decode(bytes))))
        #expect(items.map(\.path) == ["/c/a", "/c/b", "/c/c", "/c/d", "/c/é", "/c/a"])
        #expect(items.map { String(decoding: Self.written($0), as: UTF8.self) } == [
            kept, #"{"attributes":{"kMDItemFSSize":4},"path":"/c/b"}"#, #"{"attributes":{"kMDItemFSSize":5},"path":"/c/c"}"#,
            renamed, "{\"attributes\":{},\"path\":\"/c/\u{E9}\"}", kept,
        ])
    }

    @Test("Items written as lines: side by side in one copy, or one by one when something lies between them")
    func writtenAsLines() throws {
        let a = #"{"attributes":{"kMDItemFSSize":3},"path":"/c/a"}"#, b = #"{"attributes":{},"oldPath":"/c/x","path":"/c/b"}"#
        for parts in [[a, ",", b, ",", a], [a, " ,", b, ",\n", a], [a]] {
            let text = parts.joined()
            var starts: [Int] = [], ends: [Int] = [], offset = 0
            for (index, part) in parts.enumerated() {
                if index % 2 == 0 {
                    starts.append(offset)
                    ends.append(offset + part.utf8.count)
                }
                offset += part.utf8.count
            }
            let line = Array(text.utf8).withUnsafeBufferPointer { ReceivedLine(copying: $0) }
            let kept = EncodedItems(line: line, starts: starts, ends: ends)
            var lines: [UInt8] = Array("before\n".utf8)
            kept.writeLines(to: &lines)
            let expected = "before\n" + stride(from: 0, to: parts.count, by: 2).map { parts[$0] + "\n" }.joined()
            #expect(String(decoding: lines, as: UTF8.self) == expected, "\(text.debugDescription)")
        }
    }

    @Test("An item kept as bytes equals, and hashes as, the item of its fields; a changed field is written, not the bytes")
    func equalityAndChanges() throws {
        let text = #"{"attributes":{"kMDItemFSName":"a","kMDItemUserTags":["x","y"]},"oldPath":"/c/o","path":"/c/a"}"#
        let line = Array(#"{"added":[\#(text)],"changed":[\#(text)],"event":"query.update","query":1,"removed":[]}"#.utf8)
        let items = Self.items(try Self.message(line))
        let plain = WireItem(path: "/c/a", oldPath: "/c/o", attributes: ["kMDItemFSName": .string("a"),
                                                                        "kMDItemUserTags": .array([.string("x"), .string("y")])])
        #expect(items.count == 2 && items.allSatisfy { $0.keptAsBytes })
        #expect(items[0] == plain && items[1] == plain && items[0] == items[1])
        #expect(Set(items + [plain]).count == 1)
        #expect(items[0] != WireItem(path: "/c/a", attributes: plain.attributes))

        var changed = items[0]
        changed.path = "/c/b"
        #expect(!changed.keptAsBytes && changed.attributes == plain.attributes && changed.oldPath == "/c/o")
        #expect(String(decoding: Self.written(changed), as: UTF8.self) == text.replacingOccurrences(of: "/c/a", with: "/c/b"))
        var unrenamed = items[1]
        unrenamed.oldPath = nil
        #expect(Self.written(unrenamed) == Array(JSONLine.encode(WireItem(path: "/c/a", attributes: plain.attributes).json).utf8))
        #expect(items[1] == plain, "a copy changed, not the list")
    }

    @Test("A long list's items read right in any order and from several threads at once, block by block")
    func blocks() async throws {
        let count = 3 * EncodedItems.blockSize + 7
        let results = (0..<count).map { #"{"attributes":{"kMDItemFSSize":\#($0)},"path":"/c/Item_\#($0)"}"# }
        let bytes = Array(#"{"clock":"c","count":\#(count),"event":"query.gatheringFinished","query":1,"results":[\#(results.joined(separator: ","))]}"#.utf8)
        func check(_ item: WireItem, _ i: Int) -> Bool {
            item.path == "/c/Item_\(i)" && item.attribute("kMDItemFSSize") == .integer(Int64(i)) && item.oldPath == nil
        }
        // One item at each end of every block first, then all of them backwards.
        let items = Self.items(try Self.message(bytes))
        #expect(items.count == count && items.allSatisfy { $0.keptAsBytes })
        for block in 0..<4 {
            for i in [block * EncodedItems.blockSize + EncodedItems.blockSize - 1, block * EncodedItems.blockSize] where i < count {
                #expect(check(items[i], i), "item \(i)")
            }
        }
        for i in (0..<count).reversed() { #expect(check(items[i], i), "item \(i)") }
        // Fresh lists, read by four tasks at once, each from its own item on.
        for round in 0..<20 {
            let items = Self.items(try Self.message(bytes))
            let wrong = await withTaskGroup(of: [Int].self) { group in
                for reader in 0..<4 {
                    group.addTask {
                        (0..<count).map { (reader * 211 + round + $0) % count }.filter { !check(items[$0], $0) }
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(wrong.isEmpty, "round \(round): \(wrong.prefix(5))")
        }
    }

    @Test("Items read from a buffer that is only lent for the call keep a copy of it")
    func copiedLine() throws {
        let text = #"{"clock":"c","count":2,"event":"query.gatheringFinished","query":1,"results":[{"attributes":{"kMDItemFSName":"a"},"path":"/c/a"},{"attributes":{},"path":"/c/b"}]}"#
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.utf8.count)
        _ = buffer.initialize(from: text.utf8)
        let message = try ServerMessage(line: UnsafeBufferPointer(buffer))
        // The caller reuses its buffer: the items must not see it.
        buffer.update(repeating: UInt8(ascii: "x"))
        buffer.deallocate()
        let items = Self.items(message)
        #expect(items.allSatisfy { $0.keptAsBytes })
        #expect(items.map(\.path) == ["/c/a", "/c/b"])
        #expect(items.map { String(decoding: Self.written($0), as: UTF8.self) } == [
            #"{"attributes":{"kMDItemFSName":"a"},"path":"/c/a"}"#, #"{"attributes":{},"path":"/c/b"}"#,
        ])
    }

    /// Memory that lives as long as this object, which says when it goes.
    final class Owner {
        let bytes: UnsafeMutableRawBufferPointer
        init(_ text: String) {
            bytes = .allocate(byteCount: text.utf8.count, alignment: 1)
            bytes.copyBytes(from: text.utf8)
        }
        deinit {
            bytes.copyBytes(from: [UInt8](repeating: UInt8(ascii: "x"), count: bytes.count))
            bytes.deallocate()
        }
    }

    @Test("A lent line's owner lives as long as an item of it")
    func lentLine() throws {
        let text = #"{"clock":"c","count":1,"event":"query.reset","query":1,"results":[{"attributes":{"kMDItemFSSize":7},"path":"/c/a"}]}"#
        weak var gone: Owner?
        var items: [WireItem] = []
        do {
            let owner = Owner(text)
            gone = owner
            items = Self.items(try ServerMessage(line: ReceivedLine(bytes: UnsafeRawBufferPointer(owner.bytes), keptBy: owner)))
        }
        #expect(gone != nil, "the owner must live while an item refers to its bytes")
        #expect(items.count == 1 && items[0].keptAsBytes)
        #expect(String(decoding: Self.written(items[0]), as: UTF8.self) == #"{"attributes":{"kMDItemFSSize":7},"path":"/c/a"}"#)
        #expect(items[0].attributes == ["kMDItemFSSize": .integer(7)])
        items = []
        #expect(gone == nil, "the owner goes with the last item")
    }
}
