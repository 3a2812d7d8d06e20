import Foundation
import Testing
import UbiquityPredicate
@testable import UbiquityProtocol
import UbiquityTesting

/// ``CanonicalItem`` against its definition: it accepts an item's bytes exactly when the client,
/// reading them (``JSONScanner``) and writing the item back (``WireItem/writeJSON(path:oldPath:attributes:to:)``,
/// what `ubiq query --json` printed), gets the same bytes; and whatever it accepts in mutated
/// bytes, the scanner reads without an error.
@Suite("Canonical items: accepted exactly when reading and writing gives the bytes back", .ownThreads)
struct CanonicalItemTests {
    /// The bytes of each item of one seed's random items, as the daemon's encoder writes them.
    static func daemonItemBytes(seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        let attributes = (0..<random.int(0...6)).map { _ in random.pick(Attribute.all) }
        let encoder = ResultEncoderPropertyTests.encoder(attributes)
        return (0..<4).map { _ in
            let item = ResultEncoderPropertyTests.item(&random, attributes: attributes)
            let line = encoder.reset(query: 1, results: [item], clock: nil)
            // {"count":1,"event":"query.reset","query":1,"results":[ITEM]}\n
            let head = Array(#""results":["#.utf8)
            let start = line.indices.first { line[$0...].starts(with: head) }! + head.count
            return Array(line[start..<(line.count - 3)])
        }
    }

    static func end(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { CanonicalItem.end(in: $0, from: 0) }
    }

    /// What the client makes of the bytes: the item the scanner reads from them (whole, nothing
    /// after it), written back as `ubiq query --json` wrote every item; nil when it refuses them.
    static func readAndWritten(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var scanner = JSONScanner(buffer)
            guard let item = try? scanner.wireItem(), (try? scanner.end()) != nil else { return nil }
            var written: [UInt8] = []
            WireItem.writeJSON(path: item.path, oldPath: item.oldPath, attributes: item.attributes, to: &written)
            return written
        }
    }

    @Test("The daemon's items: accepted exactly when reading and writing gives them back", arguments: [UInt64(0), 1_000])
    func daemonItems(firstSeed: UInt64) {
        var accepted = 0, refused = 0
        for seed in firstSeed..<(firstSeed + 1_000) {
            for bytes in Self.daemonItemBytes(seed: seed) {
                let roundTrips = Self.readAndWritten(bytes) == bytes
                let end = Self.end(bytes)
                #expect(end == (roundTrips ? bytes.count : nil), "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
                if end != nil { accepted += 1 } else { refused += 1 }
            }
        }
        // Both kinds occur: fractional numbers (1.0 reads as 1) and raw U+2028 keep some out.
        #expect(accepted > 1_000 && refused > 100, "accepted \(accepted), refused \(refused)")
    }

    @Test("Mutated items: what is accepted, the scanner reads, and writes back to the same bytes")
    func mutations() {
        var random = SplitMix64(seed: 20_261_124)
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-tfnulr/abu"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xA8, 0xBF, 0xC0, 0xC3, 0xE2, 0xED,
                                                                            0xF0, 0xF4, 0xF5, 0xFF]
        var accepted = 0
        for seed in UInt64(0)..<3_000 {
            for var bytes in Self.daemonItemBytes(seed: seed) where !bytes.isEmpty {
                JSONScannerTests.mutate(&bytes, alphabet: alphabet, &random)
                guard let end = Self.end(bytes) else { continue }
                accepted += 1
                let item = Array(bytes[..<end])
                #expect(Self.readAndWritten(item) == item, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(accepted > 1_000, "accepted \(accepted)")
    }

    static let path = #","path":"/c/Documents/Item_1"}"#

    /// An item with these attributes (their text) and a plain path.
    static func item(_ attributes: String) -> String { #"{"attributes":"# + attributes + path }

    static func nested(_ depth: Int) -> String {
        item(#"{"a":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}")
    }

    static let acceptedTexts: [String] = [
        item("{}"),
        item(#"{"kMDItemFSName":"Item_1"}"#),
        item(#"{"a":1,"b":-2,"c":0,"d":9223372036854775807,"e":-9223372036854775808,"f":1.5,"g":1e+300,"h":5e-324}"#),
        item(#"{"a":true,"b":false,"c":null,"d":[],"e":["x",["y"],{}],"f":{"k":"v","l":{}}}"#),
        item(#"{"a":"\"\\\n\r\t\u0000\u0008\u000c\u001f\u2028\u2029/"}"#),
        item("{\"a\":\"caf\u{E9} e\u{301} \u{1F34E} \u{7F} \u{FEFF} \u{2027} \u{202A} \u{FFFD}\"}"),
        item(#"{"A":1,"B":2,"a":3,"a0":4,"b":5}"#),
        #"{"attributes":{},"oldPath":"/c/Documents/Item_0""# + path,
        #"{"attributes":{"x":""},"oldPath":"","path":""}"#,
        nested(16),
    ]

    @Test("Accepted: every form the writer writes", arguments: acceptedTexts)
    func acceptedForms(text: String) {
        let bytes = Array(text.utf8)
        #expect(Self.end(bytes) == bytes.count)
        #expect(Self.readAndWritten(bytes) == bytes)
    }

    static let refusedTexts: [String] = [
        // Whitespace.
        #"{ "attributes":{}"# + path, #"{"attributes" :{}"# + path, item("{ }"), #"{"attributes":{}, "path":"/p"}"#,
        // Escapes the writer does not write, raw text it escapes.
        item(#"{"a":"\/"}"#), item(#"{"a":"\b"}"#), item(#"{"a":"\f"}"#), item(#"{"a":"\u00e9"}"#), item(#"{"a":"\u001F"}"#),
        item(#"{"a":"\u000a"}"#), item(#"{"a":"\u0009"}"#), item(#"{"a":"\u000D"}"#), item(#"{"a":"\u2030"}"#),
        item(#"{"a":"\u0041"}"#), item(#"{"a":"\ud83c\udf4e"}"#), item(#"{"a":"\x"}"#), item("{\"a\":\"\u{2028}\"}"),
        item("{\"a\":\"\u{2029}\"}"), item("{\"a\":\"\u{1}\"}"),
        // Numbers that read as another number, or are not JSON.
        item(#"{"a":1.0}"#), item(#"{"a":1e2}"#), item(#"{"a":1E+300}"#), item(#"{"a":-0}"#), item(#"{"a":-0.0}"#), item(#"{"a":01}"#),
        item(#"{"a":9223372036854775808}"#), item(#"{"a":-9223372036854775809}"#), item(#"{"a":10000000000000000000}"#),
        item(#"{"a":1.50}"#), item(#"{"a":.5}"#), item(#"{"a":1.}"#), item(#"{"a":-}"#),
        // Keys repeated, out of order, escaped, not ASCII.
        item(#"{"a":1,"a":2}"#), item(#"{"b":1,"a":2}"#), item(#"{"a":{"b":1,"a":2}}"#), item(#"{"\u0061":1}"#),
        item("{\"\u{E9}\":1}"),
        // Members missing, null, extra, of another type, out of order.
        #"{"attributes":null"# + path, #"{"attributes":{},"oldPath":null"# + path, #"{"path":"/p"}"#,
        #"{"attributes":{},"path":"/p","oldPath":"/o"}"#, #"{"attributes":{},"path":"/p","x":1}"#,
        #"{"attributes":{},"oldPath":1"# + path, #"{"attributes":{},"path":1}"#, #"{"attributes":[]"# + path,
        // Not JSON, or cut short.
        item(#"{"a":tru}"#), item(#"{"a":[1,]}"#), item(#"{"a":1,}"#), #"{"attributes":{}"#, #"{"attributes":{},"path":"/p"#,
        "", "[]", "null",
        nested(17),
    ]

    @Test("Refused: every other way of writing the same item, and what is not an item", arguments: refusedTexts)
    func refusedForms(text: String) {
        #expect(Self.end(Array(text.utf8)) == nil)
    }

    @Test("Refused: invalid UTF-8 anywhere in a string", arguments: [
        [0xFF], [0xC3], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xE2, 0x82], [0xE2, 0x82, 0x41], [0xF0, 0x9F, 0x8D],
    ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) {
        for (prefix, suffix) in [("", ""), ("abcdefghij", "klmnopqrst"), ("é", "")] {
            let text = Array(prefix.utf8) + sequence + Array(suffix.utf8)
            let inName = Array(#"{"attributes":{"kMDItemFSName":""#.utf8) + text + Array(#""}"#.utf8) + Array(Self.path.utf8)
            let inPath = Array(#"{"attributes":{},"path":"/c/"#.utf8) + text + Array(#""}"#.utf8)
            #expect(Self.end(inName) == nil)
            #expect(Self.end(inPath) == nil)
        }
    }

    @Test("UTF-8 is valid exactly when String(validating:) takes it")
    func utf8AsStringTakesIt() {
        var random = SplitMix64(seed: 7)
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xE2,
                                    0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0..<200_000 {
            let bytes = (0..<random.int(0...6)).map { _ in random.chance(0.8) ? random.pick(interesting) : UInt8(random.int(0...255)) }
            let valid = bytes.withUnsafeBufferPointer { CanonicalItem.isValidUTF8($0, 0..<$0.count) }
            #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}
