import Foundation
import Synchronization

/// A task executor that runs the first job it is given and holds every later one until
/// ``release()``: a test sees what a task did up to its first suspension, before any task it
/// started (or any actor it hopped to) has taken a step. Released, each job runs on a thread of
/// its own, as ``ThreadPerJobExecutor`` runs them.
final class HeldJobsExecutor: TaskExecutor, Sendable {
    private struct State {
        var firstRun = false
        var released = false
        var held: [UnownedJob] = []
    }

    private let state = Mutex(State())
    /// Signalled when the first job is held.
    private let holding = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (runs, firstHeld) = state.withLock { state -> (Bool, Bool) in
            if state.released || !state.firstRun {
                state.firstRun = true
                return (true, false)
            }
            state.held.append(job)
            return (false, state.held.count == 1)
        }
        if runs { run(job) }
        if firstHeld { holding.signal() }
    }

    /// Whether a job is held within `seconds` (blocks the calling thread: call it from a thread
    /// of its own, as under ``OwnThreads``).
    func waitUntilHolding(within seconds: Double) -> Bool {
        holding.wait(timeout: .now() + seconds) == .success
    }

    /// Runs every held job and, from now on, every job as it comes.
    func release() {
        let held = state.withLock { state in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for job in held { run(job) }
    }

    private func run(_ job: UnownedJob) {
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread { job.runSynchronously(on: executor) }
    }
}
