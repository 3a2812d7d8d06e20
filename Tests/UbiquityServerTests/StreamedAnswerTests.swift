import Foundation
import Testing
import UbiquityProtocol
import UbiquityTesting
import UbiquityJSON

/// A big answer leaves the daemon in pieces (the client reads its first items while the last
/// are encoded): on the real daemon and socket, it is still exactly one line, and nothing else
/// the connection is sent lands inside it.
@Suite(.ownThreads) struct StreamedAnswerTests {
    static let files = 6_000

    /// `files` items with long names: an answer of about 1.5 MB, two dozen pieces.
    static func prepare(_ root: String) throws {
        let documents = root + "/com.example.grocery/Documents"
        let padding = String(repeating: "x", count: 80)
        for i in 0..<files {
            guard FileManager.default.createFile(atPath: documents + "/Item_\(i)_\(padding)", contents: nil) else {
                throw TestDaemonError("cannot create item \(i)")
            }
        }
    }

    @Test func requestsAnsweredDuringABigAnswerStayOutOfIt() async throws {
        try await withDaemon(prepare: Self.prepare) { daemon in
            let client = try RawClient(socket: daemon.socket)
            _ = try client.request(#"{"id":0,"op":"hello","version":1}"#)
            // The query, then status requests at once: the session answers them while the
            // connection's outbox writes the answer.
            var requests = [#"{"id":1,"op":"query.start","predicate":"name LIKE 'Item_*'","attributes":["name","size"],"batchingInterval":0}"#]
            requests += (2...21).map { #"{"id":\#($0),"op":"status"}"# }
            try client.sendBytes(Array(requests.map { $0 + "\n" }.joined().utf8))
            var answered = Set<Int>(), results: Int?
            while results == nil || answered.count < 21 {
                let line = try #require(try client.readLine(within: 30), "the connection closed")
                let message = try #require(try? JSONLine.decode(Array(line.utf8)), "not one JSON line: \(line.prefix(200))…")
                if let id = message["id"]?.intValue { answered.insert(id) }
                if message["event"]?.stringValue == "query.gatheringFinished" {
                    results = message["results"]?.arrayValue?.count
                    #expect(line.utf8.count > 20 * 60 * 1024, "the answer was not big enough to go in pieces")
                }
            }
            #expect(results == Self.files)
            #expect(answered == Set(1...21))
        }
    }
}
