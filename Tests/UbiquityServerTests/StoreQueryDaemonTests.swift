import Testing
import UbiquityJSON
import UbiquityTesting

/// `store.fetch` and `store.watch` with `related` (relationship ends in rows) and `predicate`
/// (the predicate language over the table's columns), served by the real daemon on a real
/// socket (docs/protocol.md, "store.fetch").
@Suite("Store fetches with related rows and predicates, against the real daemon", .serialized, .ownThreads)
struct StoreQueryDaemonTests {
    static let carrots = "00000000000000000000000000000001"
    static let bread = "00000000000000000000000000000002"
    static let cheese = "00000000000000000000000000000003"
    /// The tag mall's id, derived from its name (tags are unique by name).
    static let mall = "98471ebd5834f35ea8bba0281d3c03c2"

    /// carrots (3) tagged mall and market, bread (1) tagged market, cheese (no quantity) untagged;
    /// the id of the tag market.
    static func fill(_ client: RawClient) throws -> String {
        let saved = try client.result(#"""
            {"id":2,"op":"store.save","store":"grocery","changes":[
            {"insert":"items","id":"\#(carrots)","values":{"name":"carrots","quantity":3,"created":1767225600000}},
            {"insert":"items","id":"\#(bread)","values":{"name":"bread","quantity":1}},
            {"insert":"items","id":"\#(cheese)","values":{"name":"cheese"}},
            {"insert":"tags","values":{"name":"mall"}},
            {"insert":"tags","values":{"name":"market"}},
            {"relate":"tags","from":"\#(carrots)","to":"\#(mall)"}]}
            """#.replacingOccurrences(of: "\n", with: ""))
        let market = try #require(saved["inserted"]?.arrayValue?.last?.stringValue)
        _ = try client.result(#"{"id":3,"op":"store.save","store":"grocery","changes":[{"relate":"tags","from":"\#(carrots)","to":"\#(market)"},{"relate":"tags","from":"\#(bread)","to":"\#(market)"}]}"#)
        return market
    }

    static func fetch(_ client: RawClient, _ fields: String) throws -> JSONValue {
        try client.result(#"{"id":10,"op":"store.fetch","store":"grocery",\#(fields)}"#)
    }

    static func ids(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    @Test("related: each row carries the sorted ids of its related rows, from either end; an unknown end is refused with a did-you-mean")
    func relatedRows() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            _ = try StoreDaemonTests.open(client)
            let market = try Self.fill(client)

            let items = try Self.fetch(client, #""table":"items","related":["tags"],"sort":"name""#)
            #expect(StoreDaemonTests.names(items) == ["bread", "carrots", "cheese"])
            let rows = items["rows"]?.arrayValue ?? []
            #expect(rows.map { Self.ids($0["tags"]) } == [[market], [Self.mall, market].sorted(), []])
            #expect(rows.allSatisfy { $0["tags"]?.arrayValue != nil }, "an unrelated row carries an empty list")
            let plain = try Self.fetch(client, #""table":"items","sort":"name""#)
            #expect(plain["rows"]?.arrayValue?.allSatisfy { $0["tags"] == nil } == true, "without related, rows carry columns only")

            let tags = try Self.fetch(client, #""table":"tags","related":"items","sort":"name""#)
            #expect(tags["rows"]?.arrayValue?.map { Self.ids($0["items"]) } == [[Self.carrots], [Self.carrots, Self.bread].sorted()])

            let unknown = try StoreDaemonTests.errorOf(client, #"{"id":11,"op":"store.fetch","store":"grocery","table":"items","related":["tag"]}"#)
            #expect(unknown?["code"] == .string("store.invalidChange"))
            #expect(unknown?["message"]?.stringValue?.contains("related[0]: table 'items' has no relationship end 'tag'; did you mean 'tags'?") == true)
            #expect(unknown?["field"] == .string("related[0]"))
            let wrongSide = try StoreDaemonTests.errorOf(client, #"{"id":12,"op":"store.fetch","store":"grocery","table":"tags","related":["tags"]}"#)
            #expect(wrongSide?["message"]?.stringValue?.contains("its ends are items") == true, "tags see the relationship as items")
        }
    }

    @Test("predicate: column names resolve to typed columns, a relationship end matches by the related rows' display keys; it ANDs with where; errors are predicate.* with the offset")
    func predicates() async throws {
        try await withDaemon { daemon in
            let client = try RawClient.greeted(socket: daemon.socket)
            _ = try StoreDaemonTests.open(client)
            _ = try Self.fill(client)
            func names(_ predicate: String, _ more: String = "") throws -> [String] {
                let quoted = JSONLine.encode(.string(predicate))
                return StoreDaemonTests.names(try Self.fetch(client, #""table":"items","predicate":\#(quoted),"sort":"name"\#(more)"#))
            }
            #expect(try names("name BEGINSWITH 'car' AND tags CONTAINS 'mall'") == ["carrots"])
            #expect(try names("tags CONTAINS 'market'") == ["bread", "carrots"])
            #expect(try names("tags == 'MALL'") == [])
            #expect(try names("tags ==[c] 'MALL'") == ["carrots"])
            #expect(try names("'market' IN tags AND quantity < 2") == ["bread"])
            #expect(try names("NONE tags == 'mall'") == ["bread", "cheese"])
            #expect(try names("quantity == nil OR created > '2025-12-31'") == ["carrots", "cheese"])
            #expect(try names("id == '\(Self.bread)'") == ["bread"])
            // With where, both hold.
            #expect(try names("tags CONTAINS 'market'", #","where":[{"column":"quantity","op":">","value":1}]"#) == ["carrots"])
            // Tags by their items: items have no unique key, so an item is named by its id.
            let tagged = try Self.fetch(client, #""table":"tags","predicate":"items CONTAINS '\#(Self.bread)'""#)
            #expect(StoreDaemonTests.names(tagged) == ["market"])

            func error(_ predicate: String) throws -> JSONValue? {
                let quoted = JSONLine.encode(.string(predicate))
                return try StoreDaemonTests.errorOf(client, #"{"id":20,"op":"store.fetch","store":"grocery","table":"items","predicate":\#(quoted)}"#)
            }
            let unknown = try error("quantity > 1 AND nam BEGINSWITH 'c'")
            #expect(unknown?["code"] == .string("predicate.unknownAttribute"))
            #expect(unknown?["offset"] == .integer(17))
            #expect(unknown?["message"]?.stringValue == "predicate error at 17: table 'items' has no column 'nam'; did you mean 'name'?")
            let type = try error("quantity > 'two'")
            #expect(type?["code"] == .string("predicate.type"))
            #expect(type?["offset"] == .integer(11))
            let syntax = try error("name ==")
            #expect(syntax?["code"] == .string("predicate.syntax"))
            let watch = try StoreDaemonTests.errorOf(client, #"{"id":21,"op":"store.watch","store":"grocery","table":"items","predicate":"tags CONTAINS 3"}"#)
            #expect(watch?["code"] == .string("predicate.type"), "a live fetch is checked before it is answered")
        }
    }

    @Test("A live fetch with a predicate over a relationship and related rows: a relate adds a row, an unrelate changes one, both made by another connection")
    func liveRelated() async throws {
        try await withDaemon { daemon in
            let (client, other, _) = try StoreDaemonTests.twoOpened(daemon)
            let market = try Self.fill(client)
            let answer = try client.result(#"{"id":4,"op":"store.watch","store":"grocery","table":"items","predicate":"tags CONTAINS 'market'","related":["tags"],"sort":"name"}"#)
            let watch = answer["watch"]
            let gathered = try StoreDaemonTests.nextWatchEvent(client, watch: watch)
            #expect(gathered["event"] == .string("store.gatheringFinished"))
            #expect(gathered["rows"]?.arrayValue?.map { Self.ids($0["tags"]) } == [[market], [Self.mall, market].sorted()])

            // Cheese is tagged market elsewhere: it enters the result set, with its tags.
            _ = try other.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"relate":"tags","from":"\#(Self.cheese)","to":"\#(market)"}]}"#)
            let added = try StoreDaemonTests.nextWatchEvent(client, watch: watch)
            #expect(added["added"]?.arrayValue?.map { $0["name"] } == [.string("cheese")])
            #expect(Self.ids(added["added"]?.arrayValue?.first?["tags"]) == [market])
            #expect(added["changed"] == .array([]))

            // Carrots lose mall: still in the set, with one tag fewer.
            _ = try other.result(#"{"id":3,"op":"store.save","store":"grocery","changes":[{"unrelate":"tags","from":"\#(Self.carrots)","to":"\#(Self.mall)"}]}"#)
            let changed = try StoreDaemonTests.nextWatchEvent(client, watch: watch)
            #expect(changed["changed"]?.arrayValue?.map { $0["name"] } == [.string("carrots")])
            #expect(Self.ids(changed["changed"]?.arrayValue?.first?["tags"]) == [market])

            // Bread loses market: it leaves the set.
            _ = try other.result(#"{"id":4,"op":"store.save","store":"grocery","changes":[{"unrelate":"tags","from":"\#(Self.bread)","to":"\#(market)"}]}"#)
            let removed = try StoreDaemonTests.nextWatchEvent(client, watch: watch)
            #expect(removed["removed"]?.arrayValue?.map { $0["name"] } == [.string("bread")])
        }
    }
}
