import Glibc
import Synchronization
import Testing
import UbiquityIndex
import UbiquityTesting
@testable import UbiquityWatch

/// Crawls step aside while an answer from what the consumer already has is written
/// (``CrawlPause``): the rules with the time passed in, then real walks of a real tree, held
/// until released or until the hold's bound.
@Suite("Crawl pause")
struct CrawlPauseTests {
    static let t0 = ContinuousClock.now

    /// Whether `state` holds at `now` (asking may end a holding past its end).
    static func held(_ state: inout CrawlPauseState, _ now: ContinuousClock.Instant) -> Bool { state.isHeld(now: now) }

    /// Whether a walk has ended.
    final class Done: Sendable {
        private let value = Atomic(false)
        var isDone: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    @Test func aHoldLastsUntilReleasedOrItsBound() {
        var state = CrawlPauseState(budget: .seconds(2))
        #expect(!Self.held(&state, Self.t0))
        state.hold(now: Self.t0, bound: .milliseconds(500))
        #expect(Self.held(&state, Self.t0 + .milliseconds(499)))
        state.release(now: Self.t0 + .milliseconds(100))
        #expect(!Self.held(&state, Self.t0 + .milliseconds(101)))
        #expect(state.spent == .milliseconds(100))
        // Never released: it ends at its bound, and the release that comes late changes nothing.
        state.hold(now: Self.t0 + .seconds(1), bound: .milliseconds(500))
        #expect(Self.held(&state, Self.t0 + .milliseconds(1400)))
        #expect(!Self.held(&state, Self.t0 + .milliseconds(1500)))
        #expect(state.holds == 0 && state.spent == .milliseconds(600))
        state.release(now: Self.t0 + .seconds(2))
        #expect(state.holds == 0)
        #expect(!Self.held(&state, Self.t0 + .seconds(2)))
    }

    @Test func holdsAtOnceEndWithTheLastReleaseOrTheLatestBound() {
        var state = CrawlPauseState(budget: .seconds(10))
        state.hold(now: Self.t0, bound: .milliseconds(300))
        state.hold(now: Self.t0 + .milliseconds(200), bound: .milliseconds(300))
        state.release(now: Self.t0 + .milliseconds(250))
        #expect(Self.held(&state, Self.t0 + .milliseconds(450)), "one hold is still on, until 500 ms")
        #expect(!Self.held(&state, Self.t0 + .milliseconds(500)))
    }

    @Test func allHoldsTogetherStayWithinTheBudget() {
        var state = CrawlPauseState(budget: .milliseconds(700))
        state.hold(now: Self.t0, bound: .milliseconds(500))
        state.release(now: Self.t0 + .milliseconds(400))
        state.hold(now: Self.t0 + .seconds(1), bound: .milliseconds(500))
        #expect(Self.held(&state, Self.t0 + .milliseconds(1299)))
        #expect(!Self.held(&state, Self.t0 + .milliseconds(1300)), "400 + 300 ms: the budget is spent")
        state.hold(now: Self.t0 + .seconds(2), bound: .milliseconds(500))
        #expect(!Self.held(&state, Self.t0 + .seconds(2)), "no hold once the budget is spent")
    }

    /// Found in review: a hold dropped at its bound was released late (its answer written after
    /// all), and that release ended a newer answer's hold before that answer was written.
    @Test func aLateReleaseDoesNotEndANewerHold() {
        var state = CrawlPauseState(budget: .seconds(2))
        state.hold(now: Self.t0, bound: .milliseconds(500))                              // A
        #expect(!Self.held(&state, Self.t0 + .milliseconds(600)))
        state.hold(now: Self.t0 + .milliseconds(700), bound: .milliseconds(500))         // B
        state.release(now: Self.t0 + .milliseconds(710))                                 // A's, late
        #expect(Self.held(&state, Self.t0 + .milliseconds(720)), "B is not written yet")
        state.release(now: Self.t0 + .milliseconds(800))                                 // B's
        #expect(!Self.held(&state, Self.t0 + .milliseconds(801)))
        #expect(state.staleReleases == 0)
    }

    /// A tree of 20 directories of 30 files.
    static func tree() throws -> String {
        let root = try FS.temporaryDirectory()
        for d in 0..<20 {
            try FS.mkdir("\(root)/d\(d)")
            for f in 0..<30 { try FS.write("\(root)/d\(d)/f\(f)", "x") }
        }
        return root
    }

    /// Walks `root` on a thread of its own (with a subtree helper), as a crawl does: not on the
    /// shared pool, which other suites' tests can keep busy past the test's deadlines.
    static func walk(_ root: String, pause: CrawlPause, done: Done) -> Task<Int, any Error> {
        Task(executorPreference: ThreadPerJobExecutor.shared) {
            let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(fd) }
            var visitor = NoVisitor(root: root, subtreeHelper: true, pause: pause)
            let result = try Crawler().walk(root: fd, rootPath: root, relative: [], visitor: &visitor)
            done.set()
            return result.listing.entries.count
        }
    }

    @Test func aHeldWalkWaitsAtThePauseAndGoesOnWhenReleased() async throws {
        let root = try Self.tree()
        defer { _ = try? FS.removeTree(root) }
        // A budget and a bound the test cannot outlast: a walk that starts late (a loaded
        // machine) must still find the hold on, and a test task that runs late (the shared pool
        // kept busy by other suites: 65 s in one CI run) must still find the walk waiting.
        let (waits, walkerWaits) = AsyncStream.makeStream(of: Void.self)
        let pause = CrawlPause(budget: .seconds(600)) { walkerWaits.yield() }
        pause.hold(for: .seconds(600))
        let done = Done()
        let walk = Self.walk(root, pause: pause, done: done)
        let waiting = try await firstWithin(120) {
            for await _ in waits { return true }
            return false
        }
        try #require(waiting == true, "no walker came to the pause within 120 s")
        let ended = done.isDone
        #expect(!ended, "a walker waits: the walk cannot have ended")
        pause.release()
        let listed = try await firstWithin(30) { try await walk.value }
        #expect(listed == 20 * 31)
        #expect(pause.waitingWalkers == 0 && !pause.isHeld)
    }

    @Test func aHoldNeverReleasedEndsAtItsBound() async throws {
        let root = try Self.tree()
        defer { _ = try? FS.removeTree(root) }
        // A budget the test cannot outlast: a walk that starts late (the shared pool busy with
        // other suites) must still find the hold on.
        let pause = CrawlPause(budget: .seconds(600))
        pause.hold(for: .milliseconds(200))
        let walk = Self.walk(root, pause: pause, done: Done())
        let listed = try await firstWithin(30) { try await walk.value }
        #expect(listed == 20 * 31, "the walk went on after the hold's bound")
        #expect(!pause.isHeld)
    }
}
