import Foundation
import Testing
import UbiquityJSON
@testable import UbiquityProtocol
import UbiquityTesting

/// The client's scanner against `JSONDecoder` (through `JSONLine.decode`), the reader it
/// replaced: the same values for every line the daemon writes, and no line accepted that
/// `JSONDecoder` refuses.
@Suite("JSON scanner: the same values as JSONDecoder", .ownThreads)
struct JSONScannerTests {
    static func scan(_ bytes: [UInt8]) -> Result<JSONValue, ProtocolError> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ProtocolError) in
                var scanner = JSONScanner(buffer)
                return try scanner.document()
            }
        }
    }

    static func message(_ bytes: [UInt8]) -> Result<ServerMessage, ProtocolError> {
        bytes.withUnsafeBufferPointer { buffer in Result { () throws(ProtocolError) in try ServerMessage(line: buffer) } }
    }

    @Test("Every line with results reads back as JSONDecoder reads it, items straight into WireItems", arguments: [UInt64(0), 400])
    func resultLines(firstSeed: UInt64) throws {
        for seed in firstSeed..<(firstSeed + 400) {
            for (label, line, _) in ResultEncoderPropertyTests.pairs(seed: seed) {
                let bytes = Array(line.dropLast())
                let reference = try JSONLine.decode(bytes)
                #expect(try Self.scan(bytes).get() == reference, "seed \(seed), \(label)")
                let expected = try ServerMessage(json: reference)
                #expect(try Self.message(bytes).get() == expected, "seed \(seed), \(label)")
            }
        }
    }

    @Test("Awkward result items read as JSONDecoder reads them: repeated keys, escapes, unicode, big numbers, missing attributes")
    func awkwardItems() throws {
        let items = [
            #"{"path":"/a","path":"/b","attributes":{"kMDItemFSName":"a"},"attributes":{"kMDItemFSName":"b"}}"#,
            #"{"oldPath":"/x","oldPath":7,"path":"/y","attributes":null}"#,
            #"{"path":"/c/\u00e9\n\"q\"\\\/\u2028\ud83d\ude00","attributes":{"kMDItemFSName":"\t\u0001"}}"#,
            "{\"path\":\"/d/caf\u{e9}/\u{1F34E}/\u{2028}\",\"attributes\":{\"kMDItemFSName\":\"K\u{e4}se \u{1F34E}\"}}",
            #"{"path":"/e","attributes":{"kMDItemFSSize":18446744073709551616,"b":9223372036854775807,"c":-0.0,"d":1e2,"e":[1,"x",null]}}"#,
            #"{"path":"/f"}"#, #"{"attributes":{},"path":"/g","extra":{"path":"/no"},"more":[{"path":1}]}"#,
            #"{ "path" : "/h" , "attributes" : { "a" : true , "b" : false } }"#,
            "{\"path\":\"/ascii/then/\u{e9}/0123456789abcdef0123456789abcdef\",\"oldPath\":\"/0123456789abcdef\u{e9}\"}",
        ]
        for item in items {
            for event in ["query.gatheringFinished", "query.reset"] {
                let line = #"{"clock":"c","count":1,"event":"\#(event)","query":1,"results":[\#(item),\#(item)]}"#
                let bytes = Array(line.utf8)
                let reference = try JSONLine.decode(bytes)
                #expect(try Self.scan(bytes).get() == reference, "\(line)")
                #expect(try Self.message(bytes).get() == ServerMessage(json: reference), "\(line)")
            }
        }
    }

    @Test("A scanned item written back with WireItem.writeJSON is what JSONLine writes for its json")
    func writeJSON() throws {
        for seed in UInt64(0)..<300 {
            for (label, line, _) in ResultEncoderPropertyTests.pairs(seed: seed) {
                guard case .event(let event) = try Self.message(Array(line.dropLast())).get() else { continue }
                var items: [WireItem] = []
                switch event {
                case .gatheringFinished(_, .results(let results, _), _, _), .reset(_, let results, _): items = results
                case .gatheringFinished(_, .changes(_, let added, let changed, let removed, _), _, _),
                     .update(_, let added, let changed, let removed, _): items = added + changed + removed
                default: break
                }
                for item in items {
                    var bytes: [UInt8] = []
                    WireItem.writeJSON(path: item.path, oldPath: item.oldPath, attributes: item.attributes, to: &bytes)
                    #expect(bytes == Array(JSONLine.encode(item.json).utf8), "seed \(seed), \(label)")
                }
            }
        }
    }

    @Test("Numbers, escapes and odd values as JSONDecoder reads them")
    func values() throws {
        let texts = ["1.0", "1e2", "-0", "-0.0", "10000000000000000000", "9223372036854775807", "-9223372036854775808",
                     "9223372036854775808", "-9223372036854775809", "1.5", "0.1", "1e-400", "2.0e0", "-1E+2",
                     "123456789012345678901234567890", #""\u00e9\/\b\f\n\r\t\"\\""#, #""\uD83D\uDE00""#, #"{"a":1,"a":2}"#,
                     " [ 1 , {\"b\" : [ ] } ] ", "true", "false", "null", #""""#, "{}", "[]", #""€😀\u2028""#]
        for text in texts {
            #expect(try Self.scan(Array(text.utf8)).get() == JSONLine.decode(Array(text.utf8)), "\(text)")
        }
    }

    @Test("What JSONDecoder refuses is refused", arguments: [
        "1E400", #""\ud800""#, #""\udc00x""#, "01", "1.", "-", "nul", "tru", "[1", "{\"a\"}", "\"\u{01}\"",
        "[1] x", "", "   ", "\"abc", #""\x""#, "{1:2}", ".5", "+1", "1e", "[" + String(repeating: "[", count: 600) + "]",
        // Found by the server-message fuzz target: raw control characters deep in a string, a NUL
        // among them, which JSONDecoder let through (JSONLine now refuses them first).
        "{\"m\":\"a\u{16}\u{1}\u{0}b\"}", "[\"\u{0}\"]",
        // And a trailing comma, which JSONDecoder tolerated too.
        "{\"event\":\"q\",\n\n}", "[1,\"x\",]",
        // And, found by the same target, escapes JSON does not have and lone surrogates in the
        // value of a repeated key, which JSONDecoder never decodes (the first key counts).
        #"{"error":{"code":"","message":"","message":"\e"}}"#, #"{"a":"","a":"\u12"}"#, #"{"a":"","a":"\uD800"}"#,
        #"{"a":"","a":"\uDC00x"}"#, #"{"a":"","a":"\uD800\n"}"#, #"{"a":"","a":"\uD800\uD800"}"#,
        // And numbers JSON does not have, or no double holds, in such a value.
        #"{"result":{"":2,"":00}}"#, #"{"a":1,"a":01}"#, #"{"a":1,"a":1e400}"#, #"{"a":1,"a":-}"#, #"{"a":1,"a":1.}"#,
        #"{"a":1,"a":1e}"#, #"{"a":1,"a":tru}"#, #"{"a":1,"a":[1,]}"#, #"{"a":1,"a":{"b":1,}}"#, #"{"a":1,"a":"x"y}"#,
    ])
    func refusals(text: String) {
        #expect(throws: ProtocolError.self) { try JSONLine.decode(Array(text.utf8)) }
        #expect(throws: ProtocolError.self) { try Self.scan(Array(text.utf8)).get() }
    }

    @Test("Every escape JSON has, a surrogate pair among them, is read alike by both readers, also in a repeated key")
    func everyEscapeIsRead() throws {
        let text = #"{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00","a":"\uDBFF\uDFFF\u0000"}"#
        let general = try JSONLine.decode(Array(text.utf8))
        #expect(general == .object(["a": .string("\"\\/\u{8}\u{C}\n\r\t\u{E9}\u{1F600}")]))
        #expect(try Self.scan(Array(text.utf8)).get() == general)
    }

    @Test("Trailing commas are refused by the scanner (and by JSONLine, which JSONDecoder alone let through)")
    func trailingCommas() {
        for text in ["[1,]", #"{"a":1,}"#] {
            #expect(throws: ProtocolError.self) { try Self.scan(Array(text.utf8)).get() }
        }
    }

    @Test("Invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(throws: ProtocolError.self) { try Self.scan(bytes).get() }
        }
    }

    /// One to three random edits of `bytes`: a byte replaced by one of `alphabet`, removed, or
    /// one inserted.
    static func mutate(_ bytes: inout [UInt8], alphabet: [UInt8], _ random: inout SplitMix64) {
        for _ in 0..<random.int(1...3) where !bytes.isEmpty {
            let at = random.int(0...(bytes.count - 1))
            switch random.int(0...2) {
            case 0: bytes[at] = random.pick(alphabet)
            case 1: bytes.remove(at: at)
            default: bytes.insert(random.pick(alphabet), at: at)
            }
        }
    }

    @Test("Mutated lines: whatever the scanner accepts, JSONDecoder accepts with the same value")
    func mutations() throws {
        var random = SplitMix64(seed: 20_261_123)
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-tfnul/abu"#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        for seed in UInt64(0)..<300 {
            let (_, line, _) = ResultEncoderPropertyTests.pairs(seed: seed)[random.int(0...4)]
            var bytes = Array(line.dropLast())
            JSONScannerTests.mutate(&bytes, alphabet: alphabet, &random)
            guard case .success(let scanned) = Self.scan(bytes) else { continue }
            let reference = try? JSONLine.decode(bytes)
            #expect(reference == scanned, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("A malformed item falls back to the general reader and its error")
    func malformedItem() throws {
        let line = #"{"clock":"c","count":1,"event":"query.gatheringFinished","query":1,"results":[{"attributes":{},"path":7}]}"#
        let bytes = Array(line.utf8)
        let scanned = Self.message(bytes)
        let general = Result { () throws(ProtocolError) in try ServerMessage(json: try JSONLine.decode(bytes)) }
        guard case .failure(let a) = scanned, case .failure(let b) = general else {
            Issue.record("both must refuse the item: \(scanned), \(general)")
            return
        }
        #expect(a.message == b.message)
    }
}
