import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting

/// Live queries that ask the same thing share their results in the engine; on the wire each
/// stays its own: every subscriber hears every change, and one that stops keeps its results.
@Suite("Shared live queries against the real daemon", .ownThreads)
struct SharedQueryDaemonTests {
    static let start = #"{"id":1,"op":"query.start","predicate":"kMDItemFSName LIKE 'Item_*'","scope":"documents","sort":["name"],"attributes":["name"],"batchingInterval":0}"#

    func names(_ items: JSONValue?) -> [String] {
        (items?.arrayValue ?? []).compactMap { $0["attributes"]?["kMDItemFSName"]?.stringValue }
    }

    /// A connection with the query started and answered: the query's number.
    func subscribed(_ socket: String) throws -> (RawClient, Int) {
        let client = try RawClient(socket: socket)
        _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
        let (started, _) = try client.request(Self.start)
        let query = try #require(started["result"]?["query"]?.intValue)
        _ = try next("query.gatheringFinished", query: query, from: client)
        return (client, query)
    }

    /// Reads events of `query` until one named `event` arrives (the raw protocol tests' reader).
    func next(_ event: String, query: Int, from client: RawClient) throws -> JSONValue {
        try RawProtocolTests().next(event, query: query, from: client)
    }

    @Test("Three connections with the same live query each hear every change; one that stops keeps its results")
    func identicalQueriesOnThreeConnections() async throws {
        try await withDaemon { daemon in
            let documents = daemon.root + "/com.example.grocery/Documents"
            touch(documents + "/Item_A", nil)
            let subscribers = try (0..<3).map { _ in try subscribed(daemon.socket) }
            touch(documents + "/Item_B", nil)
            for (client, query) in subscribers {
                #expect(names(try next("query.update", query: query, from: client)["added"]) == ["Item_B"])
            }
            let (stopping, stopped) = subscribers[0]
            #expect(try stopping.request(#"{"id":2,"op":"query.stop","query":\#(stopped)}"#).response["result"]?["stopped"]?.boolValue == true)
            try FileManager.default.removeItem(atPath: documents + "/Item_A")
            touch(documents + "/Item_C", nil)
            for (client, query) in subscribers.dropFirst() {
                var added: [String] = [], removed: [String] = []
                while added.isEmpty || removed.isEmpty {
                    let update = try next("query.update", query: query, from: client)
                    added += names(update["added"])
                    removed += names(update["removed"])
                }
                #expect(added == ["Item_C"] && removed == ["Item_A"])
                let (results, _) = try client.request(#"{"id":3,"op":"query.results","query":\#(query)}"#)
                #expect(names(results["result"]?["results"]) == ["Item_B", "Item_C"])
            }
            let (kept, _) = try stopping.request(#"{"id":3,"op":"query.results","query":\#(stopped)}"#)
            #expect(names(kept["result"]?["results"]) == ["Item_A", "Item_B"])
        }
    }
}
