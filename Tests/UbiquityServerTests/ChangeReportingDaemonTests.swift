import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting

/// `changes` of `query.start` over the real daemon, real files and a real socket: by default an
/// edit of a matching item is a `changed` even for a query that shows only names; with
/// `"changes":"requested"` it is not — live and in a `since` answer alike.
@Suite(.ownThreads) struct ChangeReportingDaemonTests {
    static func names(_ list: JSONValue?) -> [String] {
        (list?.arrayValue ?? []).compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }.sorted()
    }

    /// The next `query.update` of query `number`, skipping other events.
    static func nextUpdate(_ client: RawClient, query number: JSONValue) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(15)
        while true {
            let message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            if message["event"]?.stringValue == "query.update", message["query"] == number { return message }
        }
    }

    @Test func anEditIsAChangeOverTheWireUnlessChangesAreRequested() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            _ = try daemon.place("Item_1", contents: "a")
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(SinceQueryDaemonTests.hello)
            let (all, _) = try client.request(
                #"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0}"#)
            let (requested, early) = try client.request(
                #"{"id":2,"op":"query.start","predicate":"name LIKE 'Item_*'","batchingInterval":0,"changes":"requested"}"#)
            let allQuery = try #require(all["result"]?["query"]), requestedQuery = try #require(requested["result"]?["query"])
            // The first query's events may come before the second's answer.
            var gatherings = early.filter { $0["event"]?.stringValue == "query.gatheringFinished" }
            while gatherings.count < 2 {
                let message = try client.readJSON(within: 15)
                if message["event"]?.stringValue == "query.gatheringFinished" { gatherings.append(message) }
            }
            let clock = try #require(gatherings.first?["clock"]?.stringValue)

            // An edit (its size moves), then a new item: the second is news to both queries.
            try Data("a longer text".utf8).write(to: URL(fileURLWithPath: documents + "/Item_1"))
            let edited = try Self.nextUpdate(client, query: allQuery)
            #expect(Self.names(edited["changed"]) == ["Item_1"])
            let shown = try #require(edited["changed"]?.arrayValue?.first?["attributes"])
            guard case .object(let fields) = shown else { Issue.record("attributes are not an object: \(shown)"); return }
            #expect(Set(fields.keys) == ["kMDItemFSName"], "only the attributes the query asked for: \(shown)")
            _ = try daemon.place("Item_2", contents: "b")
            let added = try Self.nextUpdate(client, query: requestedQuery)
            #expect(Self.names(added["added"]) == ["Item_2"])
            #expect(Self.names(added["changed"]).isEmpty, "requested: the edit of a size nobody asked for is no news: \(added)")

            // A client that comes back with the clock hears of the edit the same way.
            for (changes, expected) in [("all", ["Item_1"]), ("requested", [String]())] {
                let again = try RawClient(socket: daemon.socket)
                _ = try again.request(SinceQueryDaemonTests.hello)
                _ = try again.request(
                    #"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","live":false,"since":"\#(clock)","changes":"\#(changes)"}"#)
                let answer = try SinceQueryDaemonTests.next(again, "query.gatheringFinished")
                #expect(Self.names(answer["changed"]) == expected, "\(changes): \(answer)")
                #expect(Self.names(answer["added"]) == ["Item_2"])
            }
        }
    }

    /// `changes` and `freshness` (SavedFreshnessDaemonTests) take one of their words or are refused.
    @Test(arguments: [("changes", "some", "all or requested"), ("freshness", "stale", "exact or saved")])
    func anUnknownValueOfAQueryOptionIsRefusedNamingIt(field: String, value: String, choices: String) async throws {
        try await withDaemon { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(SinceQueryDaemonTests.hello)
            let (answer, _) = try client.request(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","\#(field)":"\#(value)"}"#)
            let message = try #require(answer["error"]?["message"]?.stringValue)
            #expect(message.contains("'\(value)'") && message.contains(choices), "\(message)")
        }
    }
}
