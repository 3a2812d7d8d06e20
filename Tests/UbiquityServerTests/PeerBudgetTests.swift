import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityTesting

/// One user's queries and gathered results are bounded across all its connections, so a local
/// user cannot take the system service's memory from the others.
@Suite(.ownThreads) struct PeerBudgetTests {
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    static func start(_ client: RawClient, _ predicate: String) throws -> JSONValue {
        try client.request(#"{"id":1,"op":"query.start","predicate":"\#(predicate)"}"#).response
    }

    @Test func queriesAndResultItemsAreLimitedPerUserAcrossConnections() async throws {
        var template = Array("/tmp/ubqb-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        let documents = base + "/containers/com.example.grocery/Documents"
        try FileManager.default.createDirectory(atPath: documents, withIntermediateDirectories: true)
        for i in 1...6 { #expect(FileManager.default.createFile(atPath: documents + "/Item_\(i)", contents: nil)) }
        try """
        [limits]
        max_queries_per_peer = 3
        max_result_items_per_peer = 8
        [[roots]]
        path = "\(base)/containers"
        """.write(toFile: base + "/u.toml", atomically: true, encoding: .utf8)

        try await withDaemon(containers: [], arguments: ["--config", base + "/u.toml", "--socket", "{socket}", "--log-level", "debug"]) { daemon in
            let first = try RawClient(socket: daemon.socket), second = try RawClient(socket: daemon.socket)
            let hello = try first.request(Self.hello).response
            #expect(hello["result"]?["limits"]?["maxQueriesPerPeer"]?.intValue == 3)
            _ = try second.request(Self.hello)

            // Items: 6 + 1 fit the budget of 8; 6 more would not, on any connection.
            let six = try Self.start(first, "name LIKE 'Item_*'")
            let one = try Self.start(first, "name == 'Item_1'")
            #expect(six["error"] == nil && one["error"] == nil)
            let tooMany = try Self.start(second, "name LIKE 'Item_*'")
            #expect(tooMany["error"]?["code"]?.stringValue == "server.busy", "\(tooMany)")
            #expect(tooMany["error"]?["limit"]?.intValue == 8)

            // Queries: the third slot is free, the fourth is not — whichever connection asks.
            #expect(try Self.start(second, "name == 'Item_2'")["error"] == nil)
            let fourth = try Self.start(second, "name == 'Item_3'")
            #expect(fourth["error"]?["code"]?.stringValue == "server.busy", "\(fourth)")
            #expect(fourth["error"]?["limit"]?.intValue == 3)

            // Releasing gives the budget back.
            let released = try first.request(#"{"id":2,"op":"query.release","query":\#(six["result"]?["query"]?.intValue ?? 0)}"#).response
            #expect(released["result"]?["released"]?.boolValue == true)
            #expect(try Self.start(second, "name LIKE 'Item_*'")["error"] == nil)
            // And a closed connection gives back everything it held.
            shutdown(first.fd, Int32(SHUT_RDWR))
            // The server releases on its own time, then logs the connection's end (debug).
            try await daemon.waitForLog("disconnected", within: 10)
            let afterClose = try Self.start(second, "name == 'Item_4'")
            #expect(afterClose["error"] == nil, "\(afterClose)")
        }
    }
}
