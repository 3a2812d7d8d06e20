import Foundation
import Glibc
import Testing
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// An expensive gathering costs its own client time, not everyone else's: while one client's
/// `MATCHES` query gathers, another client's requests keep being answered. Real daemon process.
@Suite(.ownThreads) struct GatheringFairnessTests {
    @Test func anotherClientIsAnsweredWhileAnExpensiveQueryGathers() async throws {
        try await withDaemon { daemon in
            let documents = daemon.documents()
            for i in 0..<600 {
                #expect(FileManager.default.createFile(atPath: documents + "/name-with-some-length-\(i)", contents: nil))
            }
            // Many patterns of many alternatives, within the predicate's budget: slow to run on every name.
            let alternatives = (0..<60).map { "w\($0)x" }.joined(separator: "|")
            let predicate = Array(repeating: "name MATCHES '.*(\(alternatives)).*z'", count: 5).joined(separator: " OR ")
            let attacker = try RawClient(socket: daemon.socket), other = try RawClient(socket: daemon.socket)
            _ = try attacker.request(#"{"id":0,"op":"hello","version":1}"#)
            _ = try other.request(#"{"id":0,"op":"hello","version":1}"#)
            // Everything is indexed before the expensive query starts, so its time is all gathering.
            _ = try other.request(#"{"id":1,"op":"query.start","predicate":"TRUEPREDICATE","live":false}"#)

            try attacker.send(JSONLine.encode(.object(["id": .integer(1), "op": .string("query.start"),
                                                       "predicate": .string(predicate), "live": .bool(false)])))
            var answered = 0
            var finished = false
            let deadline = Date().addingTimeInterval(120)
            while !finished && Date() < deadline {
                let (status, _) = try other.request(#"{"id":2,"op":"status"}"#, within: 120)
                #expect(status["result"] != nil)
                answered += 1
                while let line = try? attacker.readLine(within: 0.001) {
                    if line.contains("query.gatheringFinished") { finished = true }
                    #expect(!line.contains(#""error""#), "\(line)")
                }
            }
            #expect(finished)
            // One answer at most came before the gathering took the engine; a stalled engine
            // answers nothing more until the gathering is over.
            #expect(answered >= 10, "the other client got \(answered) answers while the query gathered")
        }
    }
}
