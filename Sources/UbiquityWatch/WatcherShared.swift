import Glibc
import Synchronization
import UbiquityIndex

/// The state callers and the reader thread share, behind one `Mutex`, and the wake-up `eventfd`.
final class WatcherShared: Sendable {
    let state: Mutex<SharedState>
    let wakeFD: Int32
    /// Where crawls step aside while the consumer holds them (``FileWatcher/crawlPause``).
    let crawlPause = CrawlPause()

    init(wakeFD: Int32, budget: Int, kernelLimit: Int?, initial: [WatcherCommand]) {
        self.wakeFD = wakeFD
        var shared = SharedState(commands: initial, status: WatchStatus(watchBudget: budget, kernelWatchLimit: kernelLimit))
        shared.commandsSent = UInt64(initial.count)
        state = Mutex(shared)
    }

    /// Writes the eventfd. Only while running: the reader closes it once it has marked itself
    /// stopped under the same lock, so a descriptor number is never written after it is closed.
    private func wakeLocked(_ state: borrowing SharedState) {
        guard state.phase == .running || state.phase == .stopping else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    func wake() { state.withLock { wakeLocked($0) } }

    /// - Returns: false when the reader is gone (the command will never run).
    @discardableResult
    func send(_ command: WatcherCommand) -> Bool {
        state.withLock { state in
            guard state.phase == .created || state.phase == .running else { return false }
            state.commands.append(command)
            state.commandsSent += 1
            wakeLocked(state)
            return true
        }
    }

    func beginRunning() -> Bool {
        state.withLock { state in
            guard state.phase == .created else { return false }
            state.phase = .running
            return true
        }
    }

    func revertToCreated() { state.withLock { $0.phase = .created } }

    /// Marks a never-started watcher stopped. - Returns: true when the caller must close the descriptors.
    func takeOwnershipIfNeverStarted() -> Bool {
        state.withLock { state in
            guard state.phase == .created else { return false }
            state.phase = .stopped
            return true
        }
    }

    func requestStop() {
        state.withLock { state in
            guard state.phase == .running else { return }
            state.phase = .stopping
            wakeLocked(state)
        }
    }

    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.phase == .stopped { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    func noteConsumed(_ sequence: UInt64) {
        state.withLock { state in
            state.consumed = max(state.consumed, sequence)
            guard let wake = state.consumerWake, sequence >= wake else { return }
            state.consumerWake = nil
            wakeLocked(state)
        }
    }

    func noteAnswering(_ busy: Bool, at now: Int64) {
        state.withLock { state in
            if busy {
                state.answersUnderWay += 1
            } else {
                state.answersUnderWay = max(0, state.answersUnderWay - 1)
                state.lastAnswerEnded = max(state.lastAnswerEnded, now)
            }
        }
    }

    /// When the consumer was last answering a query: `now` while it is.
    func consumerLastAnswering(at now: Int64) -> Int64 {
        state.withLock { $0.answersUnderWay > 0 ? now : $0.lastAnswerEnded }
    }

    /// Whether the consumer has applied batch `sequence`; when not, the next ``noteConsumed(_:)``
    /// that reaches it wakes the reader.
    func consumerHasApplied(_ sequence: UInt64) -> Bool {
        state.withLock { state in
            if state.consumed >= sequence { return true }
            state.consumerWake = sequence
            return false
        }
    }

    // MARK: Status

    /// Publishes the reader's status, and wakes whoever waits for one like it.
    /// - Parameter commandsRun: The commands run before this status (``SharedState/commandsPublished``).
    func publish(_ status: WatchStatus, roots: [ContainerID: RootLocation], commandsRun: UInt64) {
        let ready = state.withLock { state in
            state.status = status
            state.roots = roots
            state.commandsPublished = max(state.commandsPublished, commandsRun)
            let met = state.statusWaiters.filter { $0.value.condition(status) }
            for id in met.keys { state.statusWaiters[id] = nil }
            return met.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once a published status satisfies `condition` (at once when the current one
    /// does), when the reader has stopped, or when the task is cancelled.
    func statusReached(_ condition: @escaping @Sendable (WatchStatus) -> Bool) async {
        let id = state.withLock { state in
            state.nextStatusWaiter += 1
            return state.nextStatusWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Cancellation is looked at under the lock its handler takes: one that came
                // before the waiter is kept is seen here, one after finds the waiter there.
                let kept = state.withLock { state in
                    guard !condition(state.status), state.phase != .stopped, !Task.isCancelled else { return false }
                    state.statusWaiters[id] = (condition, continuation)
                    return true
                }
                if !kept { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.statusWaiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    // MARK: Sync waiters

    func register(container: ContainerID, cookie: String) -> Int {
        state.withLock { state in
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = SyncWaiter(container: container, cookie: cookie)
            return state.nextWaiter
        }
    }

    func requireRescan(_ id: Int) { state.withLock { $0.waiters[id]?.needsRescan = true } }

    func cancel(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<UInt64, any Error>? in
            guard let waiter = state.waiters.removeValue(forKey: id), case .waiting(let c) = waiter.state else { return nil }
            return c
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Acknowledges every unacknowledged waiter `matching`, with the sequence number of the last
    /// batch emitted.
    func acknowledge(sequence: UInt64, matching: (Int, SyncWaiter) -> Bool) {
        let ready = state.withLock { state -> [CheckedContinuation<UInt64, any Error>] in
            var ready: [CheckedContinuation<UInt64, any Error>] = []
            for (id, waiter) in state.waiters where matching(id, waiter) {
                switch waiter.state {
                case .pending: state.waiters[id]?.state = .acknowledged(sequence)
                case .waiting(let continuation):
                    state.waiters[id] = nil
                    ready.append(continuation)
                case .acknowledged: break
                }
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: sequence) }
    }

    /// Waiters not yet acknowledged.
    func openWaiters() -> [(id: Int, waiter: SyncWaiter)] {
        state.withLock { state in
            state.waiters.compactMap { id, waiter in
                if case .acknowledged = waiter.state { return nil }
                return (id, waiter)
            }
        }
    }

    /// Waits for the reader to acknowledge `id`, or for `deadline`.
    func awaitAcknowledgement(_ id: Int, deadline: ContinuousClock.Instant) async throws -> UInt64 {
        try await withThrowingTaskGroup(of: UInt64?.self) { group in
            group.addTask { try await self.acknowledgement(id) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let sequence = first else {
                throw WatchError(.syncTimedOut, message: "the reader did not see the sync cookie in time")
            }
            return sequence
        }
    }

    private func acknowledgement(_ id: Int) async throws -> UInt64 {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UInt64, any Error>) in
                let result = state.withLock { state -> Result<UInt64, any Error>? in
                    guard let waiter = state.waiters[id] else {
                        if state.phase == .stopped { return .failure(WatchError(.stopped, message: "the watcher stopped during sync")) }
                        return .failure(CancellationError())
                    }
                    switch waiter.state {
                    case .acknowledged(let sequence):
                        state.waiters[id] = nil
                        return .success(sequence)
                    case .pending:
                        if state.phase == .stopped {
                            state.waiters[id] = nil
                            return .failure(WatchError(.stopped, message: "the watcher stopped during sync"))
                        }
                        state.waiters[id]?.state = .waiting(continuation)
                        return nil
                    case .waiting:
                        return .failure(WatchError(.stopped, message: "sync waiter \(id) awaited twice"))
                    }
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Called by the reader as it exits: nothing will be acknowledged any more.
    func finish() -> (waiters: [CheckedContinuation<UInt64, any Error>], stopWaiters: [CheckedContinuation<Void, Never>]) {
        state.withLock { state in
            state.phase = .stopped
            var waiting: [CheckedContinuation<UInt64, any Error>] = []
            for (_, waiter) in state.waiters { if case .waiting(let c) = waiter.state { waiting.append(c) } }
            state.waiters.removeAll()
            var stopWaiters = state.stopWaiters + state.statusWaiters.values.map(\.continuation)
            state.stopWaiters.removeAll()
            state.statusWaiters.removeAll()
            // Commands that will never run: wake whoever waits on them (a sync then sees `stopped`).
            for command in state.commands {
                switch command {
                case .barrier(let c), .hold(let c), .afterTagPass(let c, _): stopWaiters.append(c)
                default: break
                }
            }
            state.commands.removeAll()
            return (waiting, stopWaiters)
        }
    }
}
