public import Testing
import Foundation

/// A trait for suites whose tests block threads — they run real processes and wait for them, read
/// sockets with a deadline, or poll with `usleep` — or compute for seconds. Their tests run on
/// threads of their own (``ThreadPerJobExecutor``) instead of Swift's shared pool, which has one
/// thread per core, and are admitted ``concurrency`` at a time.
///
/// Why: swift-testing runs tests in parallel on that shared pool. Two tests blocked in `poll` or
/// `waitUntilExit` on a two-core machine leave no thread for any other test, so a test awaiting a
/// notification with a 10 s deadline could time out although the notification had long arrived
/// (measured: the pool stalled for 98 s at the start of `swift test`, and pure unit tests took
/// 140 s). The blocking helpers of this module (``TestDaemon``, ``RawClient``,
/// ``BuiltExecutable``, ``LineReader``, ``TwoDevices``, ``SyncthingREST``) record an issue when
/// called on the shared pool, so a suite that forgets the trait fails and says why.
///
/// ```swift
/// @Suite(.ownThreads) struct DaemonTests {
///     @Test func answers() async throws {
///         try await withTestDaemon { daemon in
///             let client = try RawClient(socket: daemon.socket)    // blocking reads: fine here
///         }
///     }
/// }
/// ```
public struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A child task, because it starts on the preferred executor; the preference alone would
        // leave the body on the shared pool until its first suspension, and a synchronous test
        // has none.
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) {
            // A suite (no test case) is not admitted: its tests are, one by one.
            async let body: Void = testCase == nil ? function() : Self.gate.admitted { try await function() }
            try await body
        }
    }

    /// How many tests with this trait run at once: twice the cores (at least 4), or
    /// `UBIQUITY_TEST_CONCURRENCY`. Without a bound every daemon, CLI and Syncthing of the suite
    /// starts in the same second, and tests measure that crowd against their deadlines.
    public static let concurrency: Int = {
        if let text = ProcessInfo.processInfo.environment["UBIQUITY_TEST_CONCURRENCY"], let value = Int(text), value > 0 {
            return value
        }
        return max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    private static let gate = AdmissionGate(limit: concurrency)

    /// Records an issue when the caller is a test's task on Swift's shared pool, about to block a
    /// thread with `what`. Threads of their own, the main thread, threads outside any task and
    /// programs that are not tests (demo-sync, the benchmarks) are fine.
    public static func checkMayBlock(_ what: @autoclosure () -> String) {
        guard Test.current != nil, !Thread.isMainThread, !ThreadPerJobExecutor.isCurrentThreadOwn,
              withUnsafeCurrentTask(body: { $0 != nil }) else { return }
        Issue.record("""
            \(what()) blocks a thread of Swift's shared pool, where it can starve every other test \
            running in parallel: give the suite the .ownThreads trait
            """)
    }
}

extension Trait where Self == OwnThreads {
    /// Runs the suite's or test's jobs on threads of their own (see ``OwnThreads``).
    public static var ownThreads: Self { OwnThreads() }
}
