import NIOCore
import Synchronization

/// Whose turn it is to write to one connection: a line written in pieces must not have another
/// task's line land between two of them. First come, first served; taking a free turn does not
/// suspend.
final class WriteTurn: Sendable {
    private struct State {
        var taken = false
        var waiting = CircularBuffer<CheckedContinuation<Void, Never>>()
    }

    private let state = Mutex(State())

    /// Runs `body` once every earlier taker is done, and hands the turn on after it, also when
    /// it throws.
    func run<R>(_ body: () async throws -> R) async rethrows -> R {
        await take()
        defer { handOn() }
        return try await body()
    }

    private func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state in
                if state.taken {
                    state.waiting.append(continuation)
                    return false
                }
                state.taken = true
                return true
            }
            if free { continuation.resume() }
        }
    }

    private func handOn() {
        // The turn passes straight to the next taker (it stays taken), or is free.
        let next = state.withLock { state in
            guard let next = state.waiting.popFirst() else {
                state.taken = false
                return nil as CheckedContinuation<Void, Never>?
            }
            return next
        }
        next?.resume()
    }
}
