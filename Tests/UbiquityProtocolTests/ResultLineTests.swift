import Testing
import UbiquityJSON
import UbiquityPredicate
@testable import UbiquityProtocol
import UbiquityTesting

/// A result set read from rows and written in pieces (what the daemon sends) against the same
/// items written whole from ``ResultFields`` (which `ResultEncoderPropertyTests` holds to the
/// general `JSONValue` path): the pieces, however small or large, make exactly those bytes.
@Suite("Result lines written in pieces", .ownThreads)
struct ResultLineTests {
    typealias Item = ResultEncoderPropertyTests.Item

    /// Items as rows; with `namesFromPaths`, names are read from the paths as the engine's are.
    struct Rows: ResultRows {
        var items: [Item]
        var namesFromPaths: Bool
        var columns: ResultColumns { ResultColumns(paths: items.map(\.path)) }
        /// As the server's rows say it: from every path's bytes.
        var textNeedsNoEscaping: Bool {
            !items.contains { item in
                var path = item.path
                return path.withUTF8(JSONLine.mayNeedEscaping)
            }
        }
        func value(_ i: Int, _ attribute: Attribute) -> Value? { items[i].values[attribute] }
    }

    /// The items a gathering hands out: no old paths, no values the query did not ask for, and
    /// with names read from paths, the name is the path's last component.
    static func items(_ random: inout SplitMix64, attributes: [Attribute], namesFromPaths: Bool) -> [Item] {
        (0..<random.int(0...40)).map { _ in
            var item = ResultEncoderPropertyTests.item(&random, attributes: attributes)
            item.oldPath = nil
            item.values = item.values.filter { attributes.contains($0.key) }
            if namesFromPaths {
                let name = String(item.path.split(separator: "/", omittingEmptySubsequences: false).last!)
                item.values[.name] = attributes.contains(.name) ? .string(name) : nil
            }
            return item
        }
    }

    /// The line's pieces joined; each call asks for at least `sizes()` bytes more.
    static func pieces<Rows>(_ line: ResultLine<Rows>, sizes: () -> Int) -> (bytes: [UInt8], calls: Int) {
        var line = line, out: [UInt8] = [], calls = 0
        while !line.isFinished {
            line.write(to: &out, atLeast: out.count + sizes())
            calls += 1
        }
        return (out, calls)
    }

    /// The line written as the server writes it: straight into buffers of `sizes()` bytes, a
    /// row that fits no buffer on its own (``ResultLine/write(into:)`` returns 0 for an empty
    /// one) through ``ResultLine/write(to:atLeast:)``.
    static func buffers<Rows>(_ line: ResultLine<Rows>, sizes: () -> Int) -> [UInt8] {
        var line = line, out: [UInt8] = []
        while !line.isFinished {
            var buffer = [UInt8](repeating: 0xEE, count: sizes())
            let written = buffer.withUnsafeMutableBytes { line.write(into: $0) }
            #expect(written <= buffer.count)
            out.append(contentsOf: buffer[..<written])
            if written == 0 && !line.isFinished { line.write(to: &out, atLeast: out.count + 1) }
        }
        return out
    }

    @Test("Pieces of any size make the whole line's bytes, for 1,500 seeds")
    func piecesMakeTheWholeLine() {
        for seed in UInt64(0)..<1_500 {
            var random = SplitMix64(seed: seed)
            var attributes = (0..<random.int(0...5)).map { _ in random.pick(Attribute.all) }
            let namesFromPaths = random.chance(0.5)
            if namesFromPaths && random.chance(0.8) { attributes.append(.name) }
            let encoder = ResultEncoderPropertyTests.encoder(attributes)
            var items = Self.items(&random, attributes: attributes, namesFromPaths: namesFromPaths)
            if random.chance(0.3) {
                // Paths with nothing to escape (most real ones), written without a look at each byte;
                // names and directories of a few bytes to over a hundred.
                items = items.enumerated().map { i, item in
                    var plain = item
                    let directory = "/home/alice/Documents" + String(repeating: "/sub", count: (i * 3) % 20)
                    let name = i % 4 == 0 ? "N\(i % 10)" : "Item_\(i)_\u{E9}\u{1F600}" + String(repeating: "x", count: (i * 7) % 80)
                    plain.path = directory + "/" + name
                    if namesFromPaths && attributes.contains(.name) { plain.values[.name] = .string(String(plain.path.split(separator: "/").last!)) }
                    return plain
                }
                #expect(items.isEmpty || Rows(items: items, namesFromPaths: namesFromPaths).textNeedsNoEscaping)
            }
            let rows = Rows(items: items, namesFromPaths: namesFromPaths)
            let fresh = random.chance(0.5) ? FreshAnswer(code: "clock.otherEpoch", reason: ResultEncoderPropertyTests.text(&random)) : nil
            let clock = random.chance(0.8) ? "c1-\(String(random.next(), radix: 16))-\(random.int(0...99))" : nil
            let id: RequestID? = random.pick([.number(7), .text(ResultEncoderPropertyTests.text(&random)), nil])
            let verified = random.chance(0.7)
            let lines: [(String, ResultLine<Rows>, [UInt8])] = [
                ("gatheringFinished", encoder.gatheringFinished(query: 5, rows: rows, fresh: fresh, clock: clock, verified: verified),
                 encoder.gatheringFinished(query: 5, results: items, fresh: fresh, clock: clock, verified: verified)),
                ("reset", encoder.reset(query: 5, rows: rows, clock: clock), encoder.reset(query: 5, results: items, clock: clock)),
                ("query.results", encoder.queryResults(id: id, query: 5, rows: rows), encoder.queryResults(id: id, query: 5, results: items)),
            ]
            for (label, line, expected) in lines {
                var whole = line
                let small = Self.pieces(line) { random.int(0...300) }
                let direct = Self.buffers(line) { random.chance(0.1) ? 60 << 10 : random.int(0...400) }
                guard whole.whole() == expected, small.bytes == expected, direct == expected else {
                    Issue.record("seed \(seed), \(label): the pieces differ from the line written whole")
                    return
                }
            }
        }
    }

    @Test("Paths split into directories and names read back whole, neighbours sharing a directory")
    func columnsSplitPaths() {
        let paths = ["/r/d/a.txt", "/r/d/b", "/r/c", "/r/d/e", "c", "/x", "/r/d/", "", "/r/d/\u{E9}\"q"]
        let columns = ResultColumns(paths: paths)
        #expect(columns.count == paths.count)
        #expect(paths.indices.map(columns.path) == paths)
        #expect(columns.rowDirectories == [0, 0, 1, 2, -1, 3, 4, -1, 4])
        #expect(String(decoding: columns.directoryBytes, as: UTF8.self) == "/r/d//r//r/d///r/d/")
        #expect(columns.pathBytes == paths.reduce(0) { $0 + $1.utf8.count })
        #expect(columns.mayNeedEscaping)
        #expect(!ResultColumns(paths: paths.dropLast()).mayNeedEscaping)
    }

    @Test("Text that may need escaping is found, whatever its length; text that needs none is copied as it is")
    func escapingIsFound() {
        var random = SplitMix64(seed: 9)
        for _ in 0..<2_000 {
            let text = ResultEncoderPropertyTests.text(&random, maxPieces: 20)
            var copy = text
            let flagged = copy.withUTF8(JSONLine.mayNeedEscaping)
            var written: [UInt8] = []
            JSONLine.writeString(text, to: &written)
            // Never missed: text the writer escapes is always flagged.
            if written != [UInt8(ascii: "\"")] + Array(text.utf8) + [UInt8(ascii: "\"")] { #expect(flagged, "\(text.debugDescription)") }
        }
        #expect(!Array("/home/alice/Documents/Item_1_\u{E9}".utf8).withUnsafeBufferPointer(JSONLine.mayNeedEscaping))
    }

    @Test("A piece stops at the first row (or the head) past the size asked for; the tail comes with the last row")
    func pieceBoundaries() {
        let items = (0..<10).map { Item(path: "/c/Documents/Item_\($0)", oldPath: nil, values: [:]) }
        let encoder = ResultEncoderPropertyTests.encoder([.name])
        var line = encoder.reset(query: 1, rows: Rows(items: items, namesFromPaths: true), clock: nil)
        var first: [UInt8] = []
        line.write(to: &first, atLeast: 1)
        #expect(String(decoding: first, as: UTF8.self) == #"{"count":10,"event":"query.reset","query":1,"results":["#)
        line.write(to: &first, atLeast: first.count + 1)
        #expect(String(decoding: first, as: UTF8.self)
            == #"{"count":10,"event":"query.reset","query":1,"results":[{"attributes":{"kMDItemFSName":"Item_0"},"path":"/c/Documents/Item_0"}"#)
        #expect(!line.isFinished)
        var rest: [UInt8] = []
        line.write(to: &rest, atLeast: .max)
        #expect(line.isFinished)
        #expect(rest.starts(with: Array(#",{"attributes":{"kMDItemFSName":"Item_1"}"#.utf8)))
        #expect(Array(rest.suffix(4)) == Array("}]}\n".utf8))
        var after: [UInt8] = []
        line.write(to: &after, atLeast: .max)
        #expect(after.isEmpty)

        let empty = encoder.queryResults(id: .number(2), query: 1, rows: Rows(items: [], namesFromPaths: true))
        #expect(String(decoding: Self.pieces(empty) { 0 }.bytes, as: UTF8.self)
            == #"{"id":2,"result":{"count":0,"query":1,"results":[]}}"# + "\n")
    }
}
