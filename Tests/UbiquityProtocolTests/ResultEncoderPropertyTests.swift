import Foundation
import Testing
import UbiquityJSON
import UbiquityPredicate
@testable import UbiquityProtocol
import UbiquityTesting

/// The direct encoder against the general path it replaces on the daemon's hot path: for seeded
/// random items — odd names, every kind of value, missing values, renames — every line with
/// results must be byte for byte what `ServerEvent.json` (or `Response.json`) through
/// `JSONLine.encodeLine` writes, and valid JSON.
@Suite("Result encoder: the same bytes as the JSONValue path", .ownThreads)
struct ResultEncoderPropertyTests {
    /// One test item: what the engine's `ResultItem` hands the encoder.
    struct Item {
        var path: String
        var oldPath: String?
        var values: [Attribute: Value]
    }

    static func encoder(_ attributes: [Attribute]) -> ResultEncoder<Item> {
        ResultEncoder(attributes: attributes) { ResultFields(path: $0.path, oldPath: $0.oldPath, values: $0.values) }
    }

    /// The general path's item, as the daemon built it before the direct encoder.
    static func wire(_ item: Item) -> WireItem {
        var attributes: [String: JSONValue] = [:]
        for (attribute, value) in item.values { attributes[attribute.canonicalName] = value.json }
        return WireItem(path: item.path, oldPath: item.oldPath, attributes: attributes)
    }

    /// Pieces that need escaping, sit at escaping boundaries, or are multi-byte UTF-8.
    static let pieces = ["a", "Item_", "/", "\"", "\\", "\n", "\r", "\t", "\u{00}", "\u{08}", "\u{0C}", "\u{1F}", "\u{7F}",
                         "\u{2028}", "\u{2029}", "\u{2027}", "\u{202A}", "é", "e\u{301}", "€", "😀", "👩‍👩‍👧", "חלב", "\u{FFFD}",
                         "\u{E2}", "\u{80}", "%20", "..", " ", "\u{FEFF}", "\\u0041", "{\"k\":[1]}"]

    static func text(_ random: inout SplitMix64, maxPieces: Int = 8) -> String {
        (0..<random.int(0...maxPieces)).map { _ in random.pick(pieces) }.joined()
    }

    static func value(_ random: inout SplitMix64, depth: Int = 0) -> Value {
        switch random.int(0...(depth > 0 ? 6 : 7)) {
        case 0: return .null
        case 1: return .bool(random.chance(0.5))
        case 2:
            return .integer(random.pick([0, 1, -1, 4096, Int64.max, Int64.min, Int64.min + 1,
                                         Int64(bitPattern: random.next())]))
        case 3:
            return .double(random.pick([0.0, -0.0, 0.5, 1.0, -2.5, 1e300, .leastNonzeroMagnitude, 0.1 + 0.2, .nan, .infinity, -.infinity,
                                        Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF)]))
        case 4: return .string(text(&random))
        case 5:
            // Dates as the index makes them: nanoseconds since 1970 ÷ 1e9, before and after 1970.
            let nanoseconds = Int64(random.int(-2_000_000_000_000_000_000...4_000_000_000_000_000_000))
            return .date(random.chance(0.3) ? Double(nanoseconds / 1_000_000_000) : Double(nanoseconds) / 1e9)
        case 6: return .string(random.pick(["public.data", "Documents", "NSMetadataUbiquitousItemDownloadingStatusCurrent"]))
        default: return .list((0..<random.int(0...3)).map { _ in value(&random, depth: depth + 1) })
        }
    }

    static func item(_ random: inout SplitMix64, attributes: [Attribute]) -> Item {
        var values: [Attribute: Value] = [:]
        for attribute in attributes where random.chance(0.85) { values[attribute] = value(&random) }
        // Rarely, a value the query did not ask for: the wire must still carry exactly the item.
        if random.chance(0.05) { values[random.pick(Attribute.all)] = value(&random) }
        let path = "/home/alice/.local/share/ubiquity/containers/com.example.grocery/Documents/" + text(&random, maxPieces: 12)
        return Item(path: path, oldPath: random.chance(0.3) ? "/" + text(&random) : nil, values: values)
    }

    static func items(_ random: inout SplitMix64, attributes: [Attribute]) -> [Item] {
        (0..<random.int(0...6)).map { _ in item(&random, attributes: attributes) }
    }

    /// Both paths for one seed: every line kind, with and without its optional fields.
    static func pairs(seed: UInt64) -> [(label: String, direct: [UInt8], general: [UInt8])] {
        var random = SplitMix64(seed: seed)
        var attributes = (0..<random.int(0...6)).map { _ in random.pick(Attribute.all) }
        if random.chance(0.2) { attributes += attributes }
        let encoder = encoder(attributes)
        let query = random.pick([1, 42, Int(Int32.max), Int.max])
        let clock = random.chance(0.8) ? "c1-\(String(random.next(), radix: 16))-\(random.int(0...99))" : nil
        let results = items(&random, attributes: attributes), added = items(&random, attributes: attributes)
        let changed = items(&random, attributes: attributes), removed = items(&random, attributes: attributes)
        let fresh = random.chance(0.5) ? FreshAnswer(code: "clock.otherEpoch", reason: text(&random)) : nil
        let since = "c1-" + text(&random, maxPieces: 3)
        let count = random.int(0...1_000_000)
        let id: RequestID? = random.pick([.number(7), .number(Int64.min), .text(text(&random)), nil])
        let verified = random.chance(0.7)
        func general(_ event: ServerEvent) -> [UInt8] { JSONLine.encodeLine(event.json) }
        return [
            ("gatheringFinished results",
             encoder.gatheringFinished(query: query, results: results, fresh: fresh, clock: clock, verified: verified),
             general(.gatheringFinished(query: query, answer: .results(results.map(wire), fresh: fresh), clock: clock,
                                        verified: verified))),
            ("gatheringFinished since",
             encoder.gatheringFinished(query: query, since: since, added: added, changed: changed, removed: removed, count: count,
                                       clock: clock, verified: verified),
             general(.gatheringFinished(query: query, answer: .changes(since: since, added: added.map(wire), changed: changed.map(wire),
                                                                       removed: removed.map(wire), count: count), clock: clock,
                                        verified: verified))),
            ("update",
             encoder.update(query: query, added: added, changed: changed, removed: removed, clock: clock),
             general(.update(query: query, added: added.map(wire), changed: changed.map(wire), removed: removed.map(wire), clock: clock))),
            ("reset",
             encoder.reset(query: query, results: results, clock: clock),
             general(.reset(query: query, results: results.map(wire), clock: clock))),
            ("query.results",
             encoder.queryResults(id: id, query: query, results: results),
             JSONLine.encodeLine(Response(id: id, result: .object([
                 "query": .integer(Int64(query)), "count": .integer(Int64(results.count)),
                 "results": .array(results.map { wire($0).json }),
             ])).json)),
        ]
    }

    @Test("Byte for byte the general path's lines, for 2,000 seeds", arguments: [UInt64(0), 500, 1_000, 1_500])
    func sameBytes(firstSeed: UInt64) throws {
        for seed in firstSeed..<(firstSeed + 500) {
            for (label, direct, general) in Self.pairs(seed: seed) {
                guard direct != general else { continue }
                Issue.record("""
                    seed \(seed), \(label): the direct encoder differs from the JSONValue path
                      direct:  \(String(decoding: direct, as: UTF8.self))
                      general: \(String(decoding: general, as: UTF8.self))
                    """)
                return
            }
        }
    }

    @Test("Every line is one line of valid JSON, by Foundation's parser")
    func validJSON() throws {
        for seed in UInt64(10_000)..<10_300 {
            for (label, direct, _) in Self.pairs(seed: seed) {
                #expect(direct.last == 0x0A && !direct.dropLast().contains(0x0A), "seed \(seed), \(label): not one line")
                // Foundation's parser, independent of ours: the bytes are JSON.
                #expect((try? JSONSerialization.jsonObject(with: Data(direct.dropLast()), options: [.fragmentsAllowed])) != nil,
                        "seed \(seed), \(label): not valid JSON: \(String(decoding: direct, as: UTF8.self))")
            }
        }
    }

    @Test("A known item, exactly")
    func knownItem() {
        let item = Item(path: "/c/Documents/Item_\"1\"\n", oldPath: "/c/Documents/Item_0",
                        values: [.size: .integer(-5), .name: .string("Item_\"1\"\n"), .userTags: .list([.string("a"), .string("b")]),
                                 .contentChangeDate: .date(1_700_000_000.25)])
        let line = Self.encoder([.size, .name, .contentChangeDate, .userTags, .isHidden])
            .update(query: 3, added: [], changed: [item], removed: [], clock: "c1-1-2")
        #expect(String(decoding: line, as: UTF8.self) == #"""
            {"added":[],"changed":[{"attributes":{"kMDItemFSContentChangeDate":"2023-11-14T22:13:20.25Z","kMDItemFSName":"Item_\"1\"\n","kMDItemFSSize":-5,"kMDItemUserTags":["a","b"]},"oldPath":"/c/Documents/Item_0","path":"/c/Documents/Item_\"1\"\n"}],"clock":"c1-1-2","event":"query.update","query":3,"removed":[]}

            """#)
    }
}
