import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting

/// Requests a hostile or careless client can send, against the real daemon: each gets its
/// documented error, and nothing it does reaches another connection's queries.
@Suite(.ownThreads) struct SessionHardeningTests {
    static let hello = #"{"id":0,"op":"hello","version":1}"#

    @Test func anotherConnectionsQueryCannotBeStoppedPausedOrResumed() async throws {
        try await withDaemon { daemon in
            let owner = try RawClient(socket: daemon.socket), intruder = try RawClient(socket: daemon.socket)
            _ = try owner.request(Self.hello)
            _ = try intruder.request(Self.hello)
            let started = try owner.request(#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'"}"#).response
            let query = try #require(started["result"]?["query"]?.intValue)
            for op in ["query.stop", "query.disableUpdates", "query.enableUpdates"] {
                let answer = try intruder.request(#"{"id":2,"op":"\#(op)","query":\#(query)}"#).response
                #expect(answer["error"]?["code"]?.stringValue == "query.unknown", "\(op): \(answer)")
            }
            // The owner's query is still live: a new item reaches it.
            _ = try daemon.place("Item_1", contents: "milk")
            var update: JSONValue?
            let deadline = Date().addingTimeInterval(10)
            while update == nil, Date() < deadline {
                let event = try owner.readJSON(within: deadline.timeIntervalSinceNow)
                if event["event"]?.stringValue == "query.update" { update = event }
            }
            #expect(update?["added"]?.arrayValue?.count == 1)
        }
    }

    @Test func sortKeysAndAttributesAreLimited() async throws {
        // As a process: decoding 100,000 sort keys on a test process's shared pool, behind other
        // in-process daemons, took over the 10 s deadline on a loaded two-core machine.
        try await withTestDaemon { daemon in
            let client = try RawClient(socket: daemon.socket)
            let hello = try client.request(Self.hello).response
            let limits = try #require(hello["result"]?["limits"])
            let maxSort = try #require(limits["maxSortKeys"]?.intValue), maxAttributes = try #require(limits["maxAttributes"]?.intValue)
            func start(sort: Int, attributes: Int) throws -> JSONValue {
                let sortKeys = Array(repeating: "\"name\"", count: sort).joined(separator: ",")
                let names = Array(repeating: "\"size\"", count: attributes).joined(separator: ",")
                return try client.request(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","live":false,"sort":[\#(sortKeys)],"attributes":[\#(names)]}"#).response
            }
            #expect(try start(sort: maxSort, attributes: maxAttributes)["error"] == nil)
            let tooManyKeys = try start(sort: maxSort + 1, attributes: 1)
            #expect(tooManyKeys["error"]?["code"]?.stringValue == "query.invalidSort")
            #expect(tooManyKeys["error"]?["limit"]?.intValue == maxSort)
            let tooManyAttributes = try start(sort: 0, attributes: maxAttributes + 1)
            #expect(tooManyAttributes["error"]?["code"]?.stringValue == "request.malformed")
            #expect(tooManyAttributes["error"]?["field"]?.stringValue == "attributes")
            // A request of 100,000 sort keys is refused, not stored per item.
            #expect(try start(sort: 100_000, attributes: 1)["error"]?["code"]?.stringValue == "query.invalidSort")
        }
    }

    /// A request longer than the limit is refused even when it arrives whole in one read (the
    /// line decoder's own limit only fires while a line is incomplete).
    @Test func aLineOverTheLimitInOneWriteIsRefused() async throws {
        var template = Array("/tmp/ubql-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: base) }
        try "[limits]\nmax_line_bytes = 1024\n[[roots]]\npath = \"\(base)\"\n".write(toFile: base + "/u.toml", atomically: true, encoding: .utf8)
        try await withDaemon(containers: [], arguments: ["--config", base + "/u.toml", "--socket", "{socket}"]) { daemon in
            let client = try RawClient(socket: daemon.socket)
            let padding = String(repeating: "x", count: 2000)
            try client.send(#"{"id":0,"op":"hello","version":1,"client":"\#(padding)"}"#)
            let answer = try client.readJSON()
            #expect(answer["error"]?["code"]?.stringValue == "request.tooLarge", "\(answer)")
            #expect(client.waitForClose())
        }
    }
}
