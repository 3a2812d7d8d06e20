import Foundation
import Testing
@testable import UbiquityJSON
import UbiquityTesting

/// The request reader that goes around Foundation's decoder: on every text it reads, it reads
/// what Foundation's reads; it leaves to Foundation's exactly what only that one may judge.
struct JSONPlainReaderTests {
    static func foundation(_ text: [UInt8]) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text)) }

    /// Random values written with random whitespace, escapes and number spellings.
    struct Writer {
        var random: SplitMix64
        /// Whether the text may hold what the plain reader leaves to Foundation's.
        var judged: Bool
        var leftToFoundation = false

        mutating func space() -> String { random.chance(0.3) ? random.pick([" ", "\t", "\r\n", "  "]) : "" }

        mutating func string() -> String {
            var out = "\""
            for _ in 0..<random.int(0...8) {
                switch random.int(0...9) {
                case 0: out += random.pick(["\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r"])
                case 1: out += random.pick(["\\u00e9", "\\u0041", "\\u2028", "\\u0000", "\\uFFFD"])
                case 2:
                    if judged {
                        out += "\\ud83d\\ude00"
                        leftToFoundation = true
                    } else {
                        out += "é"
                    }
                case 3: out += random.pick(["é", "日本", "😀", "Item_0FB"])
                default: out += random.pick(["a", "name", "kMDItemFSName", " ", "'", "*", "Item_"])
                }
            }
            return out + "\""
        }

        mutating func number() -> String {
            if judged && random.chance(0.3) {
                leftToFoundation = true
                return random.pick(["1.0", "-0.0", "1e2", "1.5", "-2.5E-3", "99999999999999999999", "9223372036854775808", "0.1"])
            }
            return random.pick(["0", "-0", "7", "-12", "1048576", "9223372036854775807", "-9223372036854775808", "\(random.int(-1_000_000...1_000_000))"])
        }

        mutating func value(depth: Int) -> String {
            switch depth > 3 ? random.int(0...3) : random.int(0...5) {
            case 0: return string()
            case 1: return number()
            case 2: return random.pick(["true", "false", "null"])
            case 3: return random.chance(0.5) ? string() : number()
            case 4:
                let elements = (0..<random.int(0...4)).map { _ in space() + value(depth: depth + 1) + space() }
                return "[" + elements.joined(separator: ",") + space() + "]"
            default:
                // Keys unique by their text ("k1_…", "k2_…"), escapes or not; repeated only on purpose.
                var keys = (0..<random.int(0...4)).map { i in "\"k\(i)_" + string().dropFirst() }
                if judged, let first = keys.first, random.chance(0.2) {
                    keys.append(first)
                    leftToFoundation = true
                }
                let members = keys.map { space() + $0 + space() + ":" + space() + value(depth: depth + 1) + space() }
                return "{" + members.joined(separator: ",") + space() + "}"
            }
        }
    }

    @Test(arguments: [false, true])
    func readsWhatFoundationReadsAndLeavesItTheRest(judged: Bool) throws {
        var writer = Writer(random: SplitMix64(seed: judged ? 37 : 3), judged: judged)
        var read = 0
        for round in 0..<3_000 {
            writer.leftToFoundation = false
            let text = Array((writer.space() + "[" + writer.value(depth: 0) + "]" + writer.space()).utf8)
            let expected = try Self.foundation(text)
            let plain = JSONPlainReader.read(text)
            if let plain {
                read += 1
                #expect(plain == expected, "round \(round): \(String(decoding: text, as: UTF8.self))")
            } else {
                #expect(writer.leftToFoundation, "round \(round): left to Foundation: \(String(decoding: text, as: UTF8.self))")
            }
            #expect(try JSONLine.parse(text) == expected, "round \(round): \(String(decoding: text, as: UTF8.self))")
        }
        if !judged { #expect(read == 3_000) }
    }

    @Test func aRequestIsReadWithoutFoundation() throws {
        let text = Array(#"{"id":7,"op":"query.start","predicate":"kMDItemFSName LIKE 'Item_*'","scope":"documents","live":false,"arguments":["a\"b",-3,null]}"#.utf8)
        let value = try #require(JSONPlainReader.read(text))
        #expect(value == (try Self.foundation(text)))
        #expect(value["predicate"]?.stringValue == "kMDItemFSName LIKE 'Item_*'")
        #expect(value["id"] == .integer(7))
    }
}
