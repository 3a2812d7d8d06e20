import Synchronization
import Testing
import UbiquityTesting

/// The gate that spaces out tests with the `.ownThreads` trait.
@Suite struct AdmissionGateTests {
    struct Failure: Error {}
    final class Inside: Sendable {
        let count = Mutex((now: 0, most: 0, done: 0))
    }

    @Test(.timeLimit(.minutes(1))) func neverMoreThanTheLimitInsideAndEveryoneGetsIn() async throws {
        let gate = AdmissionGate(limit: 2)
        let inside = Inside()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await gate.admitted {
                        inside.count.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        for _ in 0..<20 { await Task.yield() }      // yield-ok: stays inside while the others try to get in
                        inside.count.withLock { $0.now -= 1; $0.done += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = inside.count.withLock { $0 }
        #expect(final.most <= 2 && final.most >= 1)
        #expect(final.done == 12 && final.now == 0)
    }

    /// A body that throws gives its place back: with a limit of one, the next still gets in.
    @Test(.timeLimit(.minutes(1))) func aThrowingBodyLetsTheNextOneIn() async throws {
        let gate = AdmissionGate(limit: 1)
        await #expect(throws: Failure.self) { try await gate.admitted { throw Failure() } }
        #expect(try await gate.admitted { 42 } == 42)
    }
}
