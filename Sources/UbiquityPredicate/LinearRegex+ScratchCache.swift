import Synchronization

extension LinearRegex {
    /// One set of VM working memory kept for the next match. Taken out while a match runs, so
    /// the lock is held only for the swap; a concurrent match allocates its own.
    final class ScratchCache: Sendable {
        private let cached = Mutex<Program.Scratch?>(nil)

        func take() -> Program.Scratch? { cached.withLock { $0.take() } }
        func put(_ scratch: Program.Scratch) { cached.withLock { $0 = scratch } }
    }
}
