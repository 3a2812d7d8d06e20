public import Foundation
import Dispatch
import Synchronization

/// A child process's exit as an event: signalled once by its termination handler, awaited by
/// threads (with a timeout) or by tasks (without blocking a thread). Never polled.
public final class ProcessExit: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let state = Mutex<(exited: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    /// The exit of `process`, which is not started yet: its termination handler signals it.
    public static func of(_ process: Process) -> ProcessExit {
        let exit = ProcessExit()
        process.terminationHandler = { _ in exit.signal() }
        return exit
    }

    /// Called by the termination handler.
    public func signal() {
        let waiting = state.withLock { state in
            state.exited = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        semaphore.signal()
        for waiter in waiting { waiter.resume() }
    }

    /// Blocks the calling thread until the exit, or `seconds`. - Returns: whether it exited.
    public func wait(within seconds: Double) -> Bool {
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return false }
        semaphore.signal()      // stays signalled for whoever asks next
        return true
    }

    /// Suspends until the exit.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.exited { state.waiting.append(continuation) }
                return state.exited
            }
            if done { continuation.resume() }
        }
    }
}
