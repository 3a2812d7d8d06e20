import Synchronization
import Testing
@testable import UbiquityServer

/// Tasks that write in several steps, suspending between them, under one ``WriteTurn``: no
/// task's steps interleave with another's, each gets its turn, and a body that throws hands it on.
struct WriteTurnTests {
    struct Failure: Error {}

    final class Log: Sendable {
        let entries = Mutex<[Int]>([])
    }

    @Test func stepsOfOneTurnStayTogether() async throws {
        let turn = WriteTurn()
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    await turn.run {
                        for _ in 0..<5 {
                            log.entries.withLock { $0.append(writer) }
                            await Task.yield()      // yield-ok: where another writer would slip in, were the turn not held
                        }
                    }
                }
            }
        }
        let entries = log.entries.withLock { $0 }
        #expect(entries.count == 40)
        // Each writer's five steps are one run: 8 runs of 5.
        var runs: [[Int]] = []
        for entry in entries {
            if runs.last?.last == entry && runs.last!.count < 5 { runs[runs.count - 1].append(entry) } else { runs.append([entry]) }
        }
        #expect(runs.count == 8)
        #expect(Set(runs.map { $0[0] }) == Set(0..<8))
    }

    @Test func aBodyThatThrowsHandsTheTurnOn() async throws {
        let turn = WriteTurn()
        await #expect(throws: Failure.self) { try await turn.run { throw Failure() } }
        let value = await turn.run { 42 }
        #expect(value == 42)
    }
}
