import Foundation
import Synchronization
import Testing
@testable import UbiquityKit
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// ``MetadataQuery/gather(_:)`` against the real daemon: every result, in order, handed over in
/// batches as the answer arrives (a long one in many), none kept; written as the daemon wrote them.
@Suite(.ownThreads) struct GatherTests {
    /// The batches of one gather, and how many results it said it handed over.
    static func gather(_ socket: String, _ predicate: String) async throws -> (batches: [MetadataItemBatch], count: Int, kept: Int) {
        try await UbiquityConnection.withConnection(to: socket) { connection in
            let query = AnswerItemsTests.oneShot(predicate, on: connection)
            let batches = Mutex<[MetadataItemBatch]>([])
            let count = try await query.gather { batch in batches.withLock { $0.append(batch) } }
            return (batches.withLock { $0 }, count, query.resultCount)
        }
    }

    @Test func aLongAnswerArrivesInManyBatchesWithEveryResultInOrder() async throws {
        try await withDaemon { daemon in
            let predicate = try AnswerItemsTests.placeLongNames(daemon, count: 1_500)
            let reference = try AnswerItemsTests.reference(daemon.socket, predicate)
            #expect(reference.count == 1_500)
            let (batches, count, kept) = try await Self.gather(daemon.socket, predicate)
            // Most of the answer arrived before its end, a read at a time; nothing was kept.
            #expect(batches.count > 3 && batches.allSatisfy { !$0.isEmpty }, "\(batches.count) batches")
            #expect(count == 1_500 && kept == 0)
            AnswerItemsTests.check(batches.flatMap { Array($0) }, against: reference)
            var lines: [UInt8] = []
            for batch in batches { batch.writeJSONLines(to: &lines) }
            let expected = Array(reference.map { JSONLine.encode($0.json) + "\n" }.joined().utf8)
            let same = lines == expected
            #expect(same, "the lines written differ: \(lines.count) bytes against \(expected.count)")
        }
    }

    @Test func aShortAnswerWithOddNamesIsOneBatch() async throws {
        try await withDaemon { daemon in
            for (i, name) in AnswerItemsTests.names.enumerated() { _ = try daemon.place(name, contents: String(repeating: "x", count: i)) }
            let predicate = "name LIKE 'Item_*'"
            let reference = try AnswerItemsTests.reference(daemon.socket, predicate)
            let (batches, count, _) = try await Self.gather(daemon.socket, predicate)
            #expect(batches.count == 1 && count == AnswerItemsTests.names.count)
            AnswerItemsTests.check(batches.flatMap { Array($0) }, against: reference)
            var lines: [UInt8] = []
            batches.first?.writeJSONLines(to: &lines)
            #expect(lines == Array(reference.map { JSONLine.encode($0.json) + "\n" }.joined().utf8))

            // Nothing matches: no batch, and a count of 0.
            let none = try await Self.gather(daemon.socket, "name == 'nothing'")
            #expect(none.batches.isEmpty && none.count == 0)
        }
    }

    @Test func aLiveQueryARepeatedCallAndARefusedPredicateAreErrors() async throws {
        try await withDaemon { daemon in
            try await UbiquityConnection.withConnection(to: daemon.socket) { connection in
                let live = MetadataQuery(connection: connection, predicateFormat: "name LIKE '*'")
                await #expect(throws: UbiquityKitError.liveQueryCannotGather) { try await live.gather { _ in } }

                let once = MetadataQuery(connection: connection, predicateFormat: "name LIKE '*'")
                once.isLive = false
                _ = try await once.gather { _ in }
                await #expect(throws: UbiquityKitError.queryAlreadyStarted) { try await once.gather { _ in } }

                let refused = MetadataQuery(connection: connection, predicateFormat: "name LIKE )")
                refused.isLive = false
                await #expect {
                    try await refused.gather { _ in }
                } throws: { error in
                    (error as? ProtocolError)?.code.rawValue == "predicate.syntax"
                }
                #expect(refused.isStopped)
            }
        }
    }

    /// The daemon gone in the middle of an answer: the batches handed over stand, and gather
    /// says the answer did not finish.
    @Test func anAnswerCutShortHandsOverWhatCameAndThenFails() async throws {
        let items = (0..<2_000).map { #"{"attributes":{"kMDItemFSName":"f\#($0)"},"path":"/c/Documents/f\#($0)"}"# }
        let answer = #"{"id":2,"result":{"query":5}}"# + "\n" + #"{"event":"query.gatheringStarted","query":5}"# + "\n"
            + #"{"clock":"c1-x-0","count":2000,"event":"query.gatheringFinished","query":5,"results":["# + items.joined(separator: ",")
        // Answers hello, then sends most of the answer to the query and closes.
        let server = try ScriptedServer(replies: [ScriptedServer.hello, String(answer.dropLast(30))])
        let connection = try await UbiquityConnection.connect(to: server.path, helloTimeout: .seconds(10))
        let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE '*'")
        query.isLive = false
        let handed = Mutex<[String]>([])
        await #expect {
            _ = try await query.gather { batch in handed.withLock { $0 += batch.map(\.path) } }
        } throws: { error in
            guard case .disconnected(let reason) = error as? UbiquityKitError else { return false }
            return reason.contains("in the middle of a line")
        }
        let paths = handed.withLock { $0 }
        #expect(paths.count > 1_000 && paths.count < 2_000, "\(paths.count) handed over")
        #expect(paths == (0..<paths.count).map { "/c/Documents/f\($0)" })
    }

    /// The daemon keeps a stopped query's results until they are released: gather releases them.
    @Test func theQueryIsReleasedAfterwards() async throws {
        try await withDaemon { daemon in
            for i in 0..<20 { _ = try daemon.place("Item_\(i)", contents: "x") }
            try await UbiquityConnection.withConnection(to: daemon.socket) { connection in
                let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
                query.isLive = false
                #expect(try await query.gather { _ in } == 20)
                let id = try #require(query.queryID)
                let deadline = ContinuousClock.now + .seconds(10)
                var released = false
                while !released, ContinuousClock.now < deadline {
                    do {
                        _ = try await connection.send(QueryResults(query: id))
                        // sleep-ok: the client sends the release from a task of its own and nothing says when it arrived: ask again
                        try await Task.sleep(for: .milliseconds(5))
                    } catch let error as ProtocolError {
                        released = error.code.rawValue == "query.unknown"
                        #expect(released, "\(error)")
                        break
                    }
                }
                #expect(released)
            }
        }
    }
}
