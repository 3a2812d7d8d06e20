import Foundation
import Synchronization
import Testing
import UbiquityTesting

/// The `.ownThreads` trait: tests that block threads run on threads of their own, and the blocking
/// helpers say so when a suite forgets it.
@Suite(.ownThreads) struct OwnThreadsTests {
    /// More jobs than Swift's shared pool has threads all block at once, each until every one of
    /// them has started: on a pool with one thread per core this could never finish.
    @Test func moreBlockedJobsThanCoresAllRunAtOnce() async throws {
        let jobs = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let barrier = Barrier(parties: jobs)
        let met = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<jobs { group.addTask { barrier.arriveAndWait(within: 20) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(met == jobs)
    }

    /// On a thread of its own, a blocking helper records nothing.
    @Test func blockingOnAnOwnThreadIsFine() {
        #expect(ThreadPerJobExecutor.isCurrentThreadOwn)
        OwnThreads.checkMayBlock("a test of the check")
    }
}

/// Without the trait the test runs on the shared pool, and the check records why it must not block.
@Suite struct SharedPoolBlockingTests {
    @Test func blockingOnTheSharedPoolIsAnIssue() {
        #expect(!ThreadPerJobExecutor.isCurrentThreadOwn)
        withKnownIssue {
            OwnThreads.checkMayBlock("a test of the check")
        } matching: { issue in
            issue.description.contains("a test of the check blocks a thread of Swift's shared pool")
        }
    }
}

/// Threads that wait, with a deadline, until `parties` of them have arrived.
private final class Barrier: Sendable {
    private let parties: Int
    private let arrived = Mutex(0)
    private let condition = NSCondition()

    init(parties: Int) { self.parties = parties }

    /// Whether all parties arrived within `seconds`.
    func arriveAndWait(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        arrived.withLock { $0 += 1 }
        condition.broadcast()
        while arrived.withLock({ $0 }) < parties {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }
}
